/**
 * Lambda answers at most 6 MB, and the proxy envelope carries the JSON body as a string, escaping
 * it again (every `"` and `\` doubles): a page's JSON stays within 2.5 MB so the envelope does too.
 */
export const ANSWER_BUDGET_BYTES = 2_500_000;

/** The longest prefix of `entries` whose JSON fits the budget; never empty when entries are not (one entry is far below it). */
export function fitAnswerBudget<T>(entries: readonly T[], budgetBytes: number = ANSWER_BUDGET_BYTES): T[] {
  const kept: T[] = [];
  let usedBytes = 0;
  for (const entry of entries) {
    usedBytes += Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;
    if (kept.length > 0 && usedBytes > budgetBytes) break;
    kept.push(entry);
  }
  return kept;
}
