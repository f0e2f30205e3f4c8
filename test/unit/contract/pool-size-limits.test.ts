import { describe, expect, it } from 'vitest';
import { parsePoolSubmission } from '../../../shared/contract/parse-pool-submission.js';
import { answerBody } from '../../../shared/contract/pool-requests.js';
import { InvalidPoolConfigError } from '../../../shared/domain/pools/pool-errors.js';

/** What would not fit in a 400 KB DynamoDB item is refused up front with a 400 that says how to fix it. */
describe('pool requests that could not be stored are refused, not failed', () => {
  it('a config past 64 KB (100 template steps of 16 KB: 1.6 MB on the pool item) is refused naming config', () => {
    // Prepare
    const agent_template = Array.from({ length: 100 }, (_, i) => ({ shell: `step ${i} `.padEnd(16_000, 'y') }));
    const body = JSON.stringify({ poolId: 'p', items: [{ itemId: 'i-1' }], config: { agent_template } });
    // Act
    const refusal = (() => {
      try {
        parsePoolSubmission(body, 'application/json');
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    // Assess
    expect(refusal).toBeInstanceOf(InvalidPoolConfigError);
    expect((refusal as InvalidPoolConfigError).message).toMatch(/config: must be at most 64 KB, as JSON and as DynamoDB stores it .*keep long prompts in files/);
  });

  it('a config just under 64 KB is taken', () => {
    const agent_template = Array.from({ length: 4 }, (_, i) => ({ shell: `step ${i} `.padEnd(15_000, 'y') }));
    expect(() => parsePoolSubmission(JSON.stringify({ items: [{ itemId: 'i-1' }], config: { agent_template } }), 'application/json')).not.toThrow();
  });

  it('a split whose subtask inputs total past 128 KB (100 × 32 KB waited on the item as 3.2 MB) is refused; 100 × 1.3 KB is taken', () => {
    // Prepare
    const subtasks = (bytes: number) => Array.from({ length: 100 }, (_, i) => ({ itemId: `s-${i}`, input: 'z'.repeat(bytes) }));
    // Act
    const tooBig = answerBody.safeParse({ option: 'split', subtasks: subtasks(32_000) });
    const fits = answerBody.safeParse({ option: 'split', subtasks: subtasks(1_300) });
    // Assess
    expect(tooBig.success).toBe(false);
    expect(tooBig.error?.issues.map((issue) => issue.message)).toContain(
      "the subtasks' inputs must total at most 128 KB, as JSON and as DynamoDB stores them; keep large data elsewhere and send references",
    );
    expect(fits.success).toBe(true);
  });
});
