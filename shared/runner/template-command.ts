import { ItemFieldMissingError } from './item-field-missing-error.js';

/** One step of a pool's `agent_template`: `{ claude: "/analyze ${item}" }` or `{ shell: "validate ${item.id}" }` (seed 003). */
export interface TemplateStep {
  type: string;
  text: string;
}

export function templateSteps(template: unknown): TemplateStep[] {
  if (!Array.isArray(template)) return [];
  return template.flatMap((step: unknown) => {
    if (step === null || typeof step !== 'object') return [];
    const [entry] = Object.entries(step as Record<string, unknown>);
    return entry && typeof entry[1] === 'string' ? [{ type: entry[0], text: entry[1] }] : [];
  });
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value ?? null));

/** `${item}` or `${item.a.b}`, matched where the text is being read. */
const PLACEHOLDER = /\$\{item((?:\.[A-Za-z0-9_-]+)*)\}/y;

/**
 * The value of `${item<path>}`: the input as JSON (as is when text), or a field of it; `item.id` falls
 * back to the item id. A field the input does not have is an ItemFieldMissingError.
 */
function placeholderValue(path: string, itemId: string, input: unknown): string {
  if (path === '') return asText(input);
  const keys = path.slice(1).split('.');
  let value: unknown = input;
  for (const [depth, key] of keys.entries()) {
    const holder = value;
    value = holder !== null && typeof holder === 'object' && Object.hasOwn(holder, key) ? (holder as Record<string, unknown>)[key] : undefined;
    if (value !== undefined) continue;
    if (path === '.id') return itemId;
    throw new ItemFieldMissingError(keys, depth, holder);
  }
  return asText(value);
}

/** Fills `${item}` and `${item.a.b}` into a step's text (a `claude` step: its text is one argument, never a shell's). */
export function interpolate(text: string, itemId: string, input: unknown): string {
  return text.replace(new RegExp(PLACEHOLDER.source, 'g'), (_, path: string) => placeholderValue(path, itemId, input));
}

/**
 * A shell step as `sh -c SCRIPT vigil-step VALUE…`: each `${item…}` becomes a positional parameter
 * referenced where it stood, so an item's input is data, never shell syntax (an input of
 * `x; rm -rf ~` stays one word). The reference follows the quoting around it: bare → "${n}", inside
 * double quotes → ${n}, inside single quotes → '"${n}"' (the quote closed and reopened around it).
 */
export function shellArgv(text: string, itemId: string, input: unknown): string[] {
  const values: string[] = [];
  let script = '';
  let quote: "'" | '"' | undefined;
  for (let at = 0; at < text.length; ) {
    PLACEHOLDER.lastIndex = at;
    const placeholder = PLACEHOLDER.exec(text);
    if (placeholder) {
      values.push(placeholderValue(placeholder[1] ?? '', itemId, input));
      const ref = `\${${values.length}}`;
      script += quote === "'" ? `'"${ref}"'` : quote === '"' ? ref : `"${ref}"`;
      at += placeholder[0].length;
      continue;
    }
    const char = text[at] ?? '';
    if (char === '\\' && quote !== "'") {
      script += text.slice(at, at + 2);
      at += 2;
      continue;
    }
    if ((char === "'" || char === '"') && (quote === undefined || quote === char)) quote = quote === undefined ? char : undefined;
    script += char;
    at++;
  }
  return ['sh', '-c', script, 'vigil-step', ...values];
}

/**
 * The argv that runs a step: `claude` through `--claude-cmd` with the filled-in text last; any other
 * through `sh -c` (`shellArgv`). Throws ItemFieldMissingError for a placeholder the item cannot fill.
 */
export function stepArgv(step: TemplateStep, claudeCommand: string, itemId: string, input: unknown): string[] {
  if (step.type === 'claude') return [...claudeCommand.split(/\s+/).filter(Boolean), interpolate(step.text, itemId, input)];
  return shellArgv(step.text, itemId, input);
}
