import { readFileSync } from 'node:fs';

/** The context `cdk synth` starts from: the `context` block of cdk.json. */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson: unknown = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  if (typeof cdkJson !== 'object' || cdkJson === null || !('context' in cdkJson)) throw new Error('cdk.json has no context block');
  return cdkJson.context as Record<string, unknown>;
}
