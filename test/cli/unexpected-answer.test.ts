import { describe, expect, it } from 'vitest';
import { iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Review finding: a gate's answer read as a region's ended in exit 1 (the job failed) and a stack trace.
describe('the vigil command on an answer it does not expect', () => {
  const vigil = useFakeVigil();

  it('status against an endpoint that answers an unexpected shape (the gate, without --gate) is exit 2 with a message, not exit 1 and a stack', async () => {
    // Prepare: a gate's job answer, asked without --gate
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { jobId: 'job-1', status: 'RUNNING', globallyTimedOut: false, datacenters: { 'us-east-1': { status: 'running', lastProgressAt: iso(Date.now()), fenceToken: 1 } } } }));
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess: exit 1 means "the job failed", which is not what happened
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).not.toMatch(/^\s+at /m);
  });
});
