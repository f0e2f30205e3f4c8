const SHOWN_FIELDS = 20;

/** What a value is, to someone who expected fields in it. */
function kindOf(value: unknown): string {
  if (value === undefined) return 'absent';
  if (value === null) return 'null';
  return typeof value === 'boolean' ? 'a boolean' : `a ${typeof value}`;
}

function fieldsOf(holder: object): string {
  const names = Object.keys(holder);
  if (names.length === 0) return 'it has no fields';
  const shown = names.slice(0, SHOWN_FIELDS).join(', ');
  return `it has: ${shown}${names.length > SHOWN_FIELDS ? `, … (${names.length} in all)` : ''}`;
}

/**
 * A template step's `${item.<field>}` names a field the item's input does not have. Filled in as
 * `null`, a typo would run the agent on "null": the item fails instead, naming what is missing.
 */
export class ItemFieldMissingError extends Error {
  // No `code`: the runner's own refusal, never an answer of the API (error-response.ts's table); the
  // item fails with `command_cannot_start` naming it (run-pool-item.ts).

  /** `path`: the placeholder's keys; `depth`: the one that is missing; `holder`: the value it was looked up in. */
  constructor(path: readonly string[], depth: number, holder: unknown) {
    const placeholder = `\${item.${path.join('.')}}`;
    const where = depth === 0 ? "the item's input" : `the item's field '${path.slice(0, depth).join('.')}'`;
    const what =
      holder !== null && typeof holder === 'object'
        ? `${where} has no field '${path[depth] ?? ''}' (${fieldsOf(holder)})`
        : `${where} is ${kindOf(holder)}, which has no fields`;
    super(`${placeholder}: ${what}. Correct the placeholder in the pool's agent_template, or give the item that field ($VIGIL_ITEM_INPUT shows the whole input).`);
    this.name = 'ItemFieldMissingError';
  }
}
