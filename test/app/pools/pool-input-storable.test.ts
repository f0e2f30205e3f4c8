import { describe, expect, it } from 'vitest';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { parsePoolSubmission } from '../../../shared/contract/parse-pool-submission.js';
import { InvalidPoolConfigError } from '../../../shared/domain/pools/pool-errors.js';
import { useTestManager } from '../support/test-manager.js';

const nested = (depth: number): unknown => (depth === 0 ? 'leaf' : { next: nested(depth - 1) });
const submission = (input: unknown) => JSON.stringify({ poolId: 'p', items: [{ itemId: 'i-1', input }] });

/** Any JSON an agent sends is either stored as sent or refused with a 400: never a 500 from DynamoDB (Schemathesis found 4.85e-216). */
describe('pool payloads DynamoDB can store', () => {
  const m = useTestManager();

  it.each([
    ['a magnitude below 1e-130', [true, 4.850784702678803e-216]],
    ['a magnitude of 1e126 or more', { big: 1e130 }],
    ['nesting deeper than 24 levels', nested(25)],
  ])('refuses %s with a 400 that says how to fix it; nothing is written', async (_what, input) => {
    // Act
    const refusal = (() => {
      try {
        parsePoolSubmission(submission(input), 'application/json');
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    // Assess
    expect(refusal).toBeInstanceOf(InvalidPoolConfigError);
    expect(String((refusal as Error).message)).toMatch(/items\.0\.input: .*(DynamoDB cannot store|nests deeper).*send it as a string|flatten/);
    expect(await m.deps.pools.getPool('p')).toBeUndefined();
  });

  it('stores the edge values as sent and reads them back', async () => {
    // Prepare
    const input = { tiny: 1e-130, negative: -1e-130, largest: Number.MAX_SAFE_INTEGER, deep: nested(23) };
    // Act
    await createPool(m.deps, parsePoolSubmission(submission(input), 'application/json'));
    // Assess
    expect((await m.deps.pools.getItem('p', 'i-1'))?.input).toEqual(input);
  });
});
