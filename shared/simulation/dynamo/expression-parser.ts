/**
 * The subset of DynamoDB's expression language Vigil's adapters use (condition, key-condition and
 * update expressions), parsed into a small tree. Anything outside the subset is rejected with a
 * ValidationException naming it, so a new adapter expression fails loudly instead of silently
 * evaluating wrong.
 */
export type Path = Array<string | number>;
export type Operand = { kind: 'path'; path: Path } | { kind: 'value'; name: string };
export type Comparator = '=' | '<>' | '<' | '<=' | '>' | '>=';

export type Condition =
  | { kind: 'and' | 'or'; left: Condition; right: Condition }
  | { kind: 'not'; inner: Condition }
  | { kind: 'compare'; op: Comparator; left: Operand; right: Operand }
  | { kind: 'between'; subject: Operand; low: Operand; high: Operand }
  | { kind: 'exists' | 'not_exists'; path: Path }
  | { kind: 'begins_with'; subject: Operand; prefix: Operand };

export type SetValue =
  | { kind: 'arith'; op: '+' | '-'; left: SetValue; right: SetValue }
  | { kind: 'if_not_exists'; path: Path; fallback: SetValue }
  | { kind: 'list_append'; left: SetValue; right: SetValue }
  | Operand;

export interface UpdateActions {
  set: Array<{ path: Path; value: SetValue }>;
  remove: Path[];
  add: Array<{ path: Path; value: Operand }>;
}

export class ValidationException extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ValidationException';
  }
}

const TOKEN = /\s*(#[A-Za-z0-9_]+|:[A-Za-z0-9_]+|[A-Za-z_][A-Za-z0-9_]*|\d+|<>|<=|>=|[()[\],.=<>+-])/y;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    if (/^\s*$/.test(expression.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(expression);
    if (!match?.[1]) throw new ValidationException(`Invalid expression: cannot read '${expression.slice(TOKEN.lastIndex)}'`);
    tokens.push(match[1]);
  }
  return tokens;
}

class Parser {
  private at = 0;
  private readonly tokens: string[];
  /** The `#name`s the expression resolved, with what each stood for: all its parse depends on. */
  readonly namesUsed: Array<[string, string]> = [];

  constructor(
    private readonly expression: string,
    private readonly names: Record<string, string>,
  ) {
    this.tokens = tokenize(expression);
  }

  private peek(): string | undefined {
    return this.tokens[this.at];
  }
  private peekUpper(): string | undefined {
    return this.peek()?.toUpperCase();
  }
  private next(): string {
    const token = this.tokens[this.at++];
    if (token === undefined) throw new ValidationException(`Invalid expression: unexpected end of '${this.expression}'`);
    return token;
  }
  private expect(token: string): void {
    const got = this.next();
    if (got !== token) throw new ValidationException(`Invalid expression: expected '${token}', got '${got}' in '${this.expression}'`);
  }
  done(): boolean {
    return this.at >= this.tokens.length;
  }
  finish<T>(value: T): T {
    if (!this.done()) throw new ValidationException(`Invalid expression: unexpected '${this.peek()}' in '${this.expression}'`);
    return value;
  }

  path(): Path {
    const path: Path = [this.name(this.next())];
    for (;;) {
      if (this.peek() === '.') {
        this.next();
        path.push(this.name(this.next()));
      } else if (this.peek() === '[') {
        this.next();
        path.push(Number(this.next()));
        this.expect(']');
      } else return path;
    }
  }

  private name(token: string): string {
    if (token.startsWith('#')) {
      const name = this.names[token];
      if (name === undefined) throw new ValidationException(`An expression attribute name used in the document path is not defined; attribute name: ${token}`);
      this.namesUsed.push([token, name]);
      return name;
    }
    if (!/^[A-Za-z_]/.test(token)) throw new ValidationException(`Invalid expression: '${token}' is not an attribute name`);
    return token;
  }

  operand(): Operand {
    const token = this.peek();
    if (token?.startsWith(':')) return { kind: 'value', name: this.next() };
    return { kind: 'path', path: this.path() };
  }

  condition(): Condition {
    return this.chain('OR', () => this.chain('AND', () => this.negation()));
  }

  /** `operand (OP operand)*`, left-associative: AND binds tighter than OR. */
  private chain(op: 'AND' | 'OR', operand: () => Condition): Condition {
    let left = operand();
    while (this.peekUpper() === op) {
      this.next();
      left = { kind: op === 'AND' ? 'and' : 'or', left, right: operand() };
    }
    return left;
  }

  private negation(): Condition {
    if (this.peekUpper() === 'NOT') {
      this.next();
      return { kind: 'not', inner: this.negation() };
    }
    return this.primary();
  }

  private primary(): Condition {
    if (this.peek() === '(') {
      this.next();
      const inner = this.condition();
      this.expect(')');
      return inner;
    }
    const fn = this.peek();
    if (fn === 'attribute_exists' || fn === 'attribute_not_exists') {
      this.next();
      this.expect('(');
      const path = this.path();
      this.expect(')');
      return { kind: fn === 'attribute_exists' ? 'exists' : 'not_exists', path };
    }
    if (fn === 'begins_with') {
      this.next();
      this.expect('(');
      const subject = this.operand();
      this.expect(',');
      const prefix = this.operand();
      this.expect(')');
      return { kind: 'begins_with', subject, prefix };
    }
    const left = this.operand();
    if (this.peekUpper() === 'BETWEEN') {
      this.next();
      const low = this.operand();
      if (this.next().toUpperCase() !== 'AND') throw new ValidationException(`Invalid BETWEEN in '${this.expression}'`);
      return { kind: 'between', subject: left, low, high: this.operand() };
    }
    const op = this.next();
    if (!['=', '<>', '<', '<=', '>', '>='].includes(op)) {
      throw new ValidationException(`Invalid expression: unsupported operator '${op}' in '${this.expression}'`);
    }
    return { kind: 'compare', op: op as Comparator, left, right: this.operand() };
  }

  updateActions(): UpdateActions {
    const actions: UpdateActions = { set: [], remove: [], add: [] };
    while (!this.done()) {
      const clause = this.next().toUpperCase();
      do {
        if (clause === 'SET') {
          const path = this.path();
          this.expect('=');
          actions.set.push({ path, value: this.setValue() });
        } else if (clause === 'REMOVE') actions.remove.push(this.path());
        else if (clause === 'ADD') actions.add.push({ path: this.path(), value: this.operand() });
        else throw new ValidationException(`Invalid UpdateExpression: unsupported clause '${clause}'`);
      } while (this.skipComma());
    }
    return actions;
  }

  private skipComma(): boolean {
    if (this.peek() !== ',') return false;
    this.next();
    return true;
  }

  private setValue(): SetValue {
    const left = this.setTerm();
    const op = this.peek();
    if (op === '+' || op === '-') {
      this.next();
      return { kind: 'arith', op, left, right: this.setTerm() };
    }
    return left;
  }

  private setTerm(): SetValue {
    const fn = this.peek();
    if (fn === 'if_not_exists') {
      this.next();
      this.expect('(');
      const path = this.path();
      this.expect(',');
      const fallback = this.setValue();
      this.expect(')');
      return { kind: 'if_not_exists', path, fallback };
    }
    if (fn === 'list_append') {
      this.next();
      this.expect('(');
      const left = this.setValue();
      this.expect(',');
      const right = this.setValue();
      this.expect(')');
      return { kind: 'list_append', left, right };
    }
    return this.operand();
  }
}

/** A parse, and the names it resolved: it holds for any names that give those the same meaning. */
interface Parsed<T> {
  namesUsed: ReadonlyArray<readonly [string, string]>;
  value: T;
}

const conditions = new Map<string, Array<Parsed<Condition>>>();
const updates = new Map<string, Array<Parsed<UpdateActions>>>();

function cached<T>(cache: Map<string, Array<Parsed<T>>>, expression: string, names: Record<string, string>, parse: (parser: Parser) => T): T {
  const known = cache.get(expression) ?? [];
  const hit = known.find((parsed) => parsed.namesUsed.every(([token, name]) => names[token] === name));
  if (hit) return hit.value;
  const parser = new Parser(expression, names);
  const value = parse(parser);
  if (cache.size > 10_000) cache.clear();
  cache.set(expression, [...known, { namesUsed: parser.namesUsed, value }]);
  return value;
}

export const parseCondition = (expression: string, names: Record<string, string> = {}): Condition =>
  cached(conditions, expression, names, (parser) => parser.finish(parser.condition()));

export const parseUpdate = (expression: string, names: Record<string, string> = {}): UpdateActions =>
  cached(updates, expression, names, (parser) => parser.updateActions());
