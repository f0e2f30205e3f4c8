import { describe, expect, it } from 'vitest';
import { handler as submitGateJob } from '../../functions/gate-api/submit-job.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { errorOf, invoke } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';
import { REGIONS } from './support/test-regions.js';
import { useHttpTestGate } from './support/use-http-test-gate.js';

/**
 * Contract: a resubmission is answered 200 only when the same jobId AND body were already accepted.
 * A duration under a millisecond is stored as one millisecond; that must not make two different
 * bodies one (a review finding: the clamp ran before the digest, so 0.0002 s was answered 200 as a
 * resend of 0.0001 s).
 */
const jobBody = (timeoutSeconds: number, stuckThresholdSeconds?: number) => ({
  jobId: 'job-1',
  timeoutSeconds,
  ...(stuckThresholdSeconds !== undefined ? { stuckThresholdSeconds } : {}),
  workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }],
});

describe('region manager: bodies that differ only below a millisecond are different bodies (dynalite)', () => {
  const m = useHttpTestManager();
  const send = (body: object) => invoke(submitJob, { method: 'POST', route: '/jobs', body });

  it('timeoutSeconds 0.0002 after 0.0001 → 409 submission_conflict; the stored job keeps one millisecond', async () => {
    // Prepare
    expect((await send(jobBody(0.0001))).statusCode).toBe(201);
    const before = await m.snapshot();
    // Act
    const other = await send(jobBody(0.0002));
    // Assess
    expect(other.statusCode).toBe(409);
    expect(errorOf(other).code).toBe('submission_conflict');
    expect(await m.snapshot()).toEqual(before);
    expect((await m.getJob('job-1')).tracking.timeoutSeconds).toBe(0.001);
  });

  it('stuckThresholdSeconds 5e-324 after 0.0005 → 409; the same body again → 200', async () => {
    // Prepare
    expect((await send(jobBody(60, 0.0005))).statusCode).toBe(201);
    // Act
    const other = await send(jobBody(60, 5e-324));
    const same = await send(jobBody(60, 0.0005));
    // Assess
    expect(other.statusCode).toBe(409);
    expect(same.statusCode).toBe(200);
    expect((await m.getJob('job-1')).tracking.stuckThresholdSeconds).toBe(0.001);
  });
});

describe('gate: bodies that differ only below a millisecond are different bodies (dynalite)', () => {
  const gate = useHttpTestGate();

  const gateBody = (timeoutSeconds: number) => ({
    jobId: 'job-g',
    timeoutSeconds,
    datacenters: Object.fromEntries(REGIONS.map((region) => [region, { workflows: [{ workflowId: `wf-${region}`, workerId: 'worker-a' }] }])),
  });
  const send = (body: object) => invoke(submitGateJob, { method: 'POST', route: '/jobs', body });

  it('timeoutSeconds 0.0002 after 0.0001 → 409; the same body again → 200; the gate stores one millisecond', async () => {
    // Prepare
    expect((await send(gateBody(0.0001))).statusCode).toBe(201);
    // Act
    const other = await send(gateBody(0.0002));
    const same = await send(gateBody(0.0001));
    // Assess
    expect(other.statusCode).toBe(409);
    expect(same.statusCode).toBe(200);
    expect((await gate.deps.gates.get('job-g'))?.timeoutSeconds).toBe(0.001);
  });
});
