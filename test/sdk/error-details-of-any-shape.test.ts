import { describe, expect, it } from 'vitest';
import { VigilHttp } from '../../shared/sdk/index.js';
import { useFakeVigil } from '../support/fake-vigil.js';

// The document declares `details` as field problems or region answers; a client still keeps the
// code of an answer whose details are neither (an older Vigil's `{ field, problem }`).
describe('the SDK reads a refusal whatever its details hold', () => {
  const vigil = useFakeVigil();

  it('a 400 whose details use another shape is a VigilApiError with its own code and details, not http_error', async () => {
    // Prepare
    const details = [{ field: 'timeoutSeconds', problem: 'must be more than 0' }];
    const fake = await vigil.fakeVigil(() => ({ status: 400, body: { error: { code: 'invalid_request', message: 'The request is invalid.', details } } }));
    const http = new VigilHttp({ endpoint: fake.url });
    // Act
    const failure = await http.call('GET', '/jobs/job-1').catch((error: unknown) => error);
    // Assess
    expect(failure).toMatchObject({ status: 400, code: 'invalid_request', details });
  });
});
