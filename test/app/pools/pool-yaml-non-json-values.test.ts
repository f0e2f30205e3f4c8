import { describe, expect, it } from 'vitest';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getItem } from '../../../functions/pools/get-item.js';
import { localContext } from '../../../shared/local/lambda-context.js';
import { REGION } from '../../support/fixtures.js';
import { httpEvent } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/**
 * Review (bad input → 500, or accepted and silently changed): `POST /pools` takes spec 113's YAML
 * (`content-type: application/yaml`) with the same `items` as JSON, whose `input` is "any JSON"
 * (contract, Agent fleets v2). YAML can say things JSON cannot: `!!timestamp` (a Date), `!!set` (a
 * Set), `!!binary` (bytes). The schema (`boundedJson`, shared/contract/pool-requests.ts) already
 * refuses YAML's `.nan`/`.inf` for that reason, but not these:
 * - `!!timestamp 2001-12-14` → 500 internal_error (the DynamoDB marshaller refuses a Date);
 * - `!!set {a, b}` → 201, and the item's input comes back as `{}`: the data is gone;
 * - `!!binary aGVsbG8=` → 201, and the input comes back as `{"0":104,"1":101,…}`.
 *
 * Correct: a value JSON cannot carry is refused whole with 400 invalid_request and a `details`
 * entry for `items.0.input`, as `.nan` is; or it is converted to JSON without loss (the date as its
 * ISO string, the set's members, the bytes as their base64 text). Never a 500, never silent loss.
 */
describe('YAML pool items whose input is not JSON (dynalite)', () => {
  const m = useHttpTestManager();

  async function create(poolId: string, input: string) {
    const body = `poolId: ${poolId}\nitems:\n  - itemId: i-1\n    input: ${input}\n`;
    const answer = await createPool(httpEvent({ method: 'POST', route: '/pools', body, headers: { 'content-type': 'application/yaml' } }), localContext('vigil-test', REGION));
    return { statusCode: answer.statusCode ?? 200, body: JSON.parse(answer.body ?? '{}') as Record<string, unknown> };
  }

  async function storedInput(poolId: string): Promise<unknown> {
    const answer = await getItem(httpEvent({ method: 'GET', route: '/pools/{poolId}/items/{itemId}', pathParameters: { poolId, itemId: 'i-1' } }), localContext('vigil-test', REGION));
    return (JSON.parse(answer.body ?? '{}') as { input?: unknown }).input;
  }

  const refusedNamingInput = (answer: { statusCode: number; body: Record<string, unknown> }) => {
    expect(answer.body['error']).toMatchObject({ code: 'invalid_request' });
    expect(JSON.stringify(answer.body['error'])).toContain('items.0.input');
  };

  it.each([
    ['!!timestamp 2001-12-14', 'p-date', (input: unknown) => expect(JSON.stringify(input)).toContain('2001-12-14')],
    ['!!set {alpha, beta}', 'p-set', (input: unknown) => expect(JSON.stringify(input)).toMatch(/alpha[\s\S]*beta/)],
    ['!!binary aGVsbG8=', 'p-bytes', (input: unknown) => expect(typeof input).toBe('string')],
  ])('input %s: refused with 400 naming items.0.input, or kept without loss', async (yamlValue, poolId, keptWithoutLoss) => {
    // Act
    const answer = await create(poolId, yamlValue);
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).not.toBe(500);
    if (answer.statusCode === 400) {
      refusedNamingInput(answer);
      expect(await m.snapshot()).toEqual([]);
      return;
    }
    expect(answer.statusCode).toBe(201);
    keptWithoutLoss(await storedInput(poolId));
  });
});
