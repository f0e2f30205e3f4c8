import { copyItem } from './copy-item.js';
import { ValidationException, type Condition, type Operand, type Path, type SetValue, type UpdateActions } from './expression-parser.js';

export type Item = Record<string, unknown>;
type Values = Record<string, unknown>;

export function getPath(item: Item, path: Path): unknown {
  let at: unknown = item;
  for (const segment of path) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string | number, unknown>)[segment];
  }
  return at;
}

function operandValue(item: Item, operand: Operand, values: Values): unknown {
  if (operand.kind === 'path') return getPath(item, operand.path);
  if (!(operand.name in values)) {
    throw new ValidationException(`An expression attribute value used in expression is not defined; attribute value: ${operand.name}`);
  }
  return values[operand.name];
}

/** DynamoDB compares only like with like: numbers with numbers, strings with strings; else false. */
function compare(a: unknown, b: unknown): number | undefined {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return undefined;
}

/** Equal in JSON's form; for two strings, or two finite numbers, that is plain `===` without serialising. */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a === b;
  if (typeof a === 'number' && typeof b === 'number' && Number.isFinite(a) && Number.isFinite(b)) return a === b;
  return a !== undefined && b !== undefined && JSON.stringify(a) === JSON.stringify(b);
}

export function evaluate(condition: Condition, item: Item, values: Values): boolean {
  switch (condition.kind) {
    case 'and':
      return evaluate(condition.left, item, values) && evaluate(condition.right, item, values);
    case 'or':
      return evaluate(condition.left, item, values) || evaluate(condition.right, item, values);
    case 'not':
      return !evaluate(condition.inner, item, values);
    case 'exists':
      return getPath(item, condition.path) !== undefined;
    case 'not_exists':
      return getPath(item, condition.path) === undefined;
    case 'begins_with': {
      const subject = operandValue(item, condition.subject, values);
      const prefix = operandValue(item, condition.prefix, values);
      return typeof subject === 'string' && typeof prefix === 'string' && subject.startsWith(prefix);
    }
    case 'between': {
      const subject = operandValue(item, condition.subject, values);
      const low = compare(subject, operandValue(item, condition.low, values));
      const high = compare(subject, operandValue(item, condition.high, values));
      return low !== undefined && high !== undefined && low >= 0 && high <= 0;
    }
    case 'compare': {
      const left = operandValue(item, condition.left, values);
      const right = operandValue(item, condition.right, values);
      if (condition.op === '=') return sameValue(left, right);
      if (condition.op === '<>') return !sameValue(left, right);
      const order = compare(left, right);
      if (order === undefined) return false;
      if (condition.op === '<') return order < 0;
      if (condition.op === '<=') return order <= 0;
      if (condition.op === '>') return order > 0;
      return order >= 0;
    }
  }
}

function setValue(item: Item, value: SetValue, values: Values): unknown {
  if (value.kind === 'path' || value.kind === 'value') {
    const resolved = operandValue(item, value, values);
    if (resolved === undefined && value.kind === 'path') {
      throw new ValidationException('The provided expression refers to an attribute that does not exist in the item');
    }
    return resolved;
  }
  if (value.kind === 'if_not_exists') return getPath(item, value.path) ?? setValue(item, value.fallback, values);
  if (value.kind === 'list_append') {
    const left = setValue(item, value.left, values);
    const right = setValue(item, value.right, values);
    if (!Array.isArray(left) || !Array.isArray(right)) throw new ValidationException('list_append needs two lists');
    return [...left, ...right];
  }
  const left = setValue(item, value.left, values);
  const right = setValue(item, value.right, values);
  if (typeof left !== 'number' || typeof right !== 'number') {
    throw new ValidationException('An operand in the update expression has an incorrect data type');
  }
  return value.op === '+' ? left + right : left - right;
}

function writePath(item: Item, path: Path, value: unknown): void {
  let at: Record<string | number, unknown> = item;
  for (const [i, segment] of path.entries()) {
    if (i === path.length - 1) {
      if (value === undefined) delete at[segment];
      else at[segment] = value;
      return;
    }
    const next = at[segment];
    if (next === null || typeof next !== 'object') {
      throw new ValidationException('The document path provided in the update expression is invalid for update');
    }
    at = next as Record<string | number, unknown>;
  }
}

/** Applies SET / REMOVE / ADD to a copy of the item: every right-hand side reads the item as it was. */
export function applyUpdate(before: Item, actions: UpdateActions, values: Values): Item {
  const after = copyItem(before);
  const sets = actions.set.map(({ path, value }) => ({ path, value: setValue(before, value, values) }));
  for (const { path, value } of sets) writePath(after, path, value);
  for (const path of actions.remove) writePath(after, path, undefined);
  for (const { path, value } of actions.add) {
    const current = getPath(before, path);
    const delta = operandValue(before, value, values);
    if (typeof delta !== 'number' || (current !== undefined && typeof current !== 'number')) {
      throw new ValidationException('ADD supports numbers only in this simulator');
    }
    writePath(after, path, (current ?? 0) + delta);
  }
  return after;
}
