import { InvokeCommand, LambdaClient, TooManyRequestsException } from '@aws-sdk/client-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { LambdaRegionManagers } from '../../../../shared/adapters/aws/lambda-region-managers.js';
import type { SubmitFromGateBody } from '../../../../shared/contract/manager-requests.js';

const lambda = mockClient(LambdaClient);
const submission = { jobId: 'job-1', timeoutSeconds: 60, gateRegion: 'eu-west-1', workflows: [] } as unknown as SubmitFromGateBody;
const payload = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)) as never;

describe('gate → region manager invoke (mocked Lambda)', () => {
  beforeEach(() => lambda.reset());
  afterAll(() => lambda.restore());
  const managers = () => new LambdaRegionManagers(['eu-west-1'], 'vigil-submit-from-gate');

  it('a function that threw (200 with FunctionError) is unreachable, never accepted, whatever its payload', async () => {
    lambda.on(InvokeCommand).resolves({ StatusCode: 200, FunctionError: 'Unhandled', Payload: payload({ statusCode: 201, body: { jobId: 'job-1' } }) });
    expect((await managers().submit('eu-west-1', submission)).outcome).toBe('unreachable');
  });

  it('a created or found job is accepted; a 4xx is relayed as refused; a 5xx or an odd payload is unreachable', async () => {
    lambda.on(InvokeCommand).resolvesOnce({ StatusCode: 200, Payload: payload({ statusCode: 201, body: { jobId: 'job-1' } }) })
      .resolvesOnce({ StatusCode: 200, Payload: payload({ statusCode: 409, body: { code: 'conflict' } }) })
      .resolvesOnce({ StatusCode: 200, Payload: payload({ statusCode: 503, body: {} }) })
      .resolvesOnce({ StatusCode: 200, Payload: payload(null) });
    const m = managers();
    expect(await m.submit('eu-west-1', submission)).toEqual({ outcome: 'accepted', body: { jobId: 'job-1' } });
    expect(await m.submit('eu-west-1', submission)).toMatchObject({ outcome: 'refused', statusCode: 409 });
    expect((await m.submit('eu-west-1', submission)).outcome).toBe('unreachable');
    expect((await m.submit('eu-west-1', submission)).outcome).toBe('unreachable');
  });

  it('a throttled invoke is unreachable (the client resends the same body)', async () => {
    lambda.on(InvokeCommand).rejects(new TooManyRequestsException({ $metadata: {}, message: 'Rate exceeded' }));
    expect((await managers().submit('eu-west-1', submission)).outcome).toBe('unreachable');
  });
});
