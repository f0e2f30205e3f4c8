import { describe, expect, it, vi } from 'vitest';
import { TerminateRequest } from '../../shared/sdk/agent.js';
import { VigilApiError, VigilUnreachableError } from '../../shared/sdk/errors.js';
import { whySignalled } from '../../shared/runner/why-signalled.js';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes, and the SDK's 5 s wait for Vigil at the deadline.
vi.setConfig({ testTimeout: 60_000 });

/**
 * A review finding: the runner logged "Vigil said cancel" (or "terminate") whenever the SDK's signal
 * fired, also when the SDK's deadline watch gave up on a Vigil that did not answer, or a call of the
 * work was refused for good. The log names the true cause.
 */
describe('vigil run: the log says why the child was stopped', () => {
  const vigil = useFakeVigil();

  it('vigil run --job, Vigil unreachable past the deadline: "deadline passed and Vigil did not answer", not "Vigil said cancel"', async () => {
    // Prepare: the first report learns a deadline 1 s away; every later call is a 503 (retried, then given up)
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress') && seen.filter((s) => s.path.endsWith('/progress')).length === 1) {
        return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 1_000) } };
      }
      return errorReply(503, 'service_unavailable', 'down');
    });
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '1', '--', 'sh', '-c', 'sleep 30'], { timeoutMs: 40_000 });
    // Assess
    expect(result.stdout + result.stderr, result.transcript).toContain('job job-1: deadline passed and Vigil did not answer; SIGTERM to group');
    expect(result.stdout + result.stderr, result.transcript).not.toContain('Vigil said cancel');
  });

  it('vigil run --pool, the heartbeat refused for good (stale_attempt): "Vigil refused", not "Vigil said terminate"', async () => {
    // Prepare: the attempt was superseded; every call of it is refused
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
      return errorReply(409, 'stale_attempt', 'Attempt 1 of item-1 is over; attempt 2 holds it.');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.2', '--grace', '1', '--', 'sh', '-c', 'sleep 30'], { timeoutMs: 45_000 });
    // Assess
    expect(result.stdout + result.stderr, result.transcript).toContain("item item-1: Vigil refused the work's calls (stale_attempt); SIGTERM to group");
    expect(result.stdout + result.stderr, result.transcript).not.toContain('Vigil said terminate');
  });
});

describe('whySignalled: each reason the SDKs give their signal', () => {
  it.each([
    ['a cancel answer (workflow SDK)', new VigilApiError(409, 'job_finished', "Job 'job-1' is CANCELLED; stop working on it."), 'cancel', 'Vigil said cancel'],
    ['a terminate answer (agent SDK)', new TerminateRequest(Date.now() + 30_000), 'terminate', 'Vigil said terminate'],
    ['no answer at the deadline (workflow SDK)', new VigilUnreachableError('no answer'), 'cancel', 'deadline passed and Vigil did not answer'],
    ['no answer at the deadline (agent SDK)', new TerminateRequest(undefined, 'stop', new VigilUnreachableError('no answer')), 'terminate', 'deadline passed and Vigil did not answer'],
    ['a refusal for good (workflow SDK)', new VigilApiError(409, 'workflow_finished', 'done'), 'cancel', "Vigil refused the work's calls (workflow_finished)"],
    ['a refusal for good (agent SDK)', new TerminateRequest(undefined, 'stop', new VigilApiError(409, 'stale_attempt', 'over')), 'terminate', "Vigil refused the work's calls (stale_attempt)"],
    ['an answer past the deadline the SDK could not read', new SyntaxError('Unexpected token'), 'cancel', "deadline passed and Vigil's answer could not be read (Unexpected token)"],
  ] as const)('%s', (_case, reason, said, logged) => {
    // Act
    const why = whySignalled(reason, said);
    // Assess
    expect(why).toBe(logged);
  });
});
