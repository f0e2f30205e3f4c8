import { describe, expect, it, vi } from 'vitest';
import { VigilApiError, VigilHttp, VigilUnreachableError } from '../../shared/sdk/index.js';
import { useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real `vigil` processes in the last case.
vi.setConfig({ testTimeout: 60_000 });

const fastRetries = { retries: 2, baseDelayMs: 1, maxDelayMs: 5 };

/**
 * Scenario: API Gateway (an HTTP API, which has no gateway responses to customise) or a worker's
 * Lambda function URL answers a call itself: a refused SigV4 signature (403), a wrong endpoint
 * (404), a body past the limit (413), a throttle (429), a failed or slow function (500, 503). Its body
 * is `{"message":"Forbidden"}`, not the contract's; the SDK made it `http_error` with the raw body,
 * and `vigil` printed `http_error: GET /jobs/job-1 answered 403: {"message":"Forbidden"}`: what is
 * wrong, but not how to fix it.
 *
 * Correct behaviour: each becomes a code and a message saying what it means and how to fix it.
 */
describe("API Gateway's and a function URL's own answers", () => {
  const vigil = useFakeVigil();

  const refusal = async (status: number, text: string) => {
    const fake = await vigil.fakeVigil(() => ({ status, text }));
    return new VigilHttp({ endpoint: fake.url, retry: fastRetries }).call('GET', '/jobs/job-1').then(
      () => undefined,
      (error: unknown) => error,
    );
  };

  it.each([
    [403, '{"message":"Forbidden"}', 'forbidden', 'execute-api:Invoke'],
    [403, '{"message":"The security token included in the request is expired"}', 'forbidden', 'The security token included in the request is expired'],
    [404, '{"message":"Not Found"}', 'route_not_found', 'ApiUrl'],
    [413, '{"message":"Request Entity Too Large"}', 'payload_too_large', 'fewer workflows or items'],
    [413, '{"Message":"Request must be smaller than 6291456 bytes for the InvokeFunction operation"}', 'payload_too_large', 'fewer workflows or items'],
  ])('%i %s is %s, saying how to fix it', async (status, text, code, fix) => {
    // Act
    const error = await refusal(status, text);
    // Assess
    expect(error).toBeInstanceOf(VigilApiError);
    expect(error).toMatchObject({ status, code, message: expect.stringContaining(fix) });
    expect((error as Error).message).toContain('GET /jobs/job-1: API Gateway answered');
  });

  it.each([
    [429, '{"message":"Too Many Requests"}', '429 throttled'],
    [503, '{"message":"Service Unavailable"}', '503 upstream_timeout'],
    [500, '{"message":"Internal Server Error"}', '500 upstream_failed'],
  ])('%i %s is still retried, and the last failure is named %s', async (status, text, named) => {
    // Act
    const error = await refusal(status, text);
    // Assess
    expect(error).toBeInstanceOf(VigilUnreachableError);
    expect((error as Error).message).toContain(named);
  });

  it("Vigil's own answers and any other body keep their meaning", async () => {
    // Act
    const contract = await refusal(403, '{"error":{"code":"invalid_token","message":"not this job\'s token"}}');
    const other = await refusal(403, '<html>Forbidden</html>');
    const moreKeys = await refusal(403, '{"message":"Forbidden","extra":1}');
    // Assess
    expect(contract).toMatchObject({ code: 'invalid_token', message: "not this job's token" });
    expect(other).toMatchObject({ code: 'http_error' });
    expect(moreKeys).toMatchObject({ code: 'http_error' });
  });

  it('vigil status refused by API Gateway: exit 2 with what it means and how to fix it', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 403, text: '{"message":"Forbidden"}' }));
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toMatch(/^forbidden: GET \/jobs\/job-1: API Gateway answered 403 "Forbidden" itself/);
    expect(result.stderr, result.transcript).toContain('execute-api:Invoke');
  });
});
