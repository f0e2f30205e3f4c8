import { describe, expect, it } from 'vitest';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getItem } from '../../../functions/pools/get-item.js';
import { localContext } from '../../../shared/local/lambda-context.js';
import { REGION } from '../../support/fixtures.js';
import { httpEvent } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/**
 * A review finding: reading YAML 1.1's tags as text (`resolveKnownTags: false`) holds only under the
 * default YAML 1.2 schema. A document opening with `%YAML 1.1` switches the parser to its 1.1 schema,
 * where `!!timestamp` and even a plain `2001-12-14` become a Date (a 500: the DynamoDB marshaller
 * refuses it), `!!set` a Set (stored as `{}`: silently lost), `!!binary` bytes and `!!omap` pairs.
 * Any value JSON has no form for is now refused with a 400 naming the field, and nothing is written.
 */
describe('YAML pool items under a %YAML 1.1 directive (dynalite)', () => {
  const m = useHttpTestManager();

  async function create(poolId: string, input: string) {
    const body = `%YAML 1.1\n---\npoolId: ${poolId}\nitems:\n  - itemId: i-1\n    input: ${input}\n`;
    const answer = await createPool(httpEvent({ method: 'POST', route: '/pools', body, headers: { 'content-type': 'application/yaml' } }), localContext('vigil-test', REGION));
    return { statusCode: answer.statusCode ?? 200, body: JSON.parse(answer.body ?? '{}') as Record<string, unknown> };
  }

  async function storedInput(poolId: string): Promise<unknown> {
    const answer = await getItem(httpEvent({ method: 'GET', route: '/pools/{poolId}/items/{itemId}', pathParameters: { poolId, itemId: 'i-1' } }), localContext('vigil-test', REGION));
    return (JSON.parse(answer.body ?? '{}') as { input?: unknown }).input;
  }

  it.each([
    ['!!timestamp 2001-12-14', 'p-date'],
    ['2001-12-14', 'p-plain-date'],
    ['!!set {alpha, beta}', 'p-set'],
    ['!!binary aGVsbG8=', 'p-bytes'],
    ['!!omap [x: 1]', 'p-pairs'],
  ])('input %s: refused with 400 naming items.0.input; nothing stored', async (yamlValue, poolId) => {
    const answer = await create(poolId, yamlValue);
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(JSON.stringify(answer.body['error'])).toContain('items.0.input');
    expect(JSON.stringify(answer.body['error'])).toContain('JSON cannot carry');
    expect(await m.snapshot()).toEqual([]);
  });

  it('a quoted date is text, and kept as sent', async () => {
    const answer = await create('p-text', "'2001-12-14'");
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(201);
    expect(await storedInput('p-text')).toBe('2001-12-14');
  });
});
