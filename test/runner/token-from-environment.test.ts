import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, errorReply, iso, useFakeVigil, type Route } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that `vigil run --job` takes the workflow's token from $VIGIL_TOKEN when --token is not
 * given: on the command line any local user reads it (`ps`, /proc/<pid>/cmdline). Inside a runner's
 * child VIGIL_TOKEN is that child's own token, so it is taken only for the same workflow, never a pool
 * attempt's for a job; and a child's VIGIL_* variables are all its own, none left over from the
 * runner's environment (a runner started inside another runner's child).
 */
describe('vigil run --job with the token in VIGIL_TOKEN', () => {
  const vigil = useFakeVigil();

  const workflowVigil: Route = (_method, path) => {
    if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 120_000) } };
    if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
    return errorReply(403, 'forbidden', 'client route');
  };
  const runJob = (url: string, env: Record<string, string>, extra: string[] = []) =>
    runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', ...extra, '--endpoint', url, '--stuck-threshold', '60', '--', 'true'], { env, timeoutMs: 45_000 });
  const noRunnerAround = { VIGIL_TOKEN: '', VIGIL_POOL: '', VIGIL_ITEM: '', VIGIL_ATTEMPT: '', VIGIL_JOB: '', VIGIL_WORKFLOW: '', VIGIL_WORKER: '' };

  it('sends every worker call with it, and runs the workflow', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(workflowVigil);
    // Act
    const result = await runJob(fake.url, { ...noRunnerAround, VIGIL_TOKEN: 'token-from-env' });
    // Assess
    expect(result.code, result.transcript).toBe(0);
    const workerCalls = fake.seen.filter((s) => s.method === 'POST');
    expect(workerCalls.length, result.transcript).toBeGreaterThan(0);
    for (const call of workerCalls) expect(call.headers['x-vigil-token'], result.transcript).toBe('token-from-env');
  });

  it('without --token or VIGIL_TOKEN: exit 2 naming both', async () => {
    const fake = await vigil.fakeVigil(workflowVigil);
    const result = await runJob(fake.url, noRunnerAround);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('--token');
    expect(result.stderr, result.transcript).toContain('VIGIL_TOKEN');
    expect(fake.seen, result.transcript).toEqual([]);
  });

  it("inside a pool runner's child, its VIGIL_TOKEN (the attempt's) is not taken for a job: exit 2, nothing sent", async () => {
    // Prepare: the environment `vigil run --pool` gives its child
    const fake = await vigil.fakeVigil(workflowVigil);
    const poolChild = { ...noRunnerAround, VIGIL_POOL: 'pool-1', VIGIL_ITEM: 'item-1', VIGIL_ATTEMPT: '1', VIGIL_TOKEN: 'attempt-token' };
    // Act
    const result = await runJob(fake.url, poolChild);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain("pool 'pool-1'");
    expect(result.stderr, result.transcript).toContain('--token');
    expect(fake.seen, result.transcript).toEqual([]);
  });

  it("inside another workflow's child, its VIGIL_TOKEN is not taken: exit 2; the same workflow's is", async () => {
    const fake = await vigil.fakeVigil(workflowVigil);
    const otherWorkflow = await runJob(fake.url, { ...noRunnerAround, VIGIL_JOB: 'job-1', VIGIL_WORKFLOW: 'wf-2', VIGIL_WORKER: 'w', VIGIL_TOKEN: 'wf-2-token' });
    expect(otherWorkflow.code, otherWorkflow.transcript).toBe(2);
    expect(otherWorkflow.stderr, otherWorkflow.transcript).toContain("workflow 'wf-2'");
    expect(fake.seen, otherWorkflow.transcript).toEqual([]);
    const sameWorkflow = await runJob(fake.url, { ...noRunnerAround, VIGIL_JOB: 'job-1', VIGIL_WORKFLOW: 'wf-1', VIGIL_WORKER: 'w', VIGIL_TOKEN: 'wf-1-token' });
    expect(sameWorkflow.code, sameWorkflow.transcript).toBe(0);
  });

  it('--token still wins over VIGIL_TOKEN', async () => {
    const fake = await vigil.fakeVigil(workflowVigil);
    const result = await runJob(fake.url, { ...noRunnerAround, VIGIL_POOL: 'pool-1', VIGIL_ATTEMPT: '1', VIGIL_TOKEN: 'attempt-token' }, ['--token', 'flag-token']);
    expect(result.code, result.transcript).toBe(0);
    for (const call of fake.seen.filter((s) => s.method === 'POST')) expect(call.headers['x-vigil-token'], result.transcript).toBe('flag-token');
  });
});

describe("a runner's child gets only its own VIGIL_* variables", () => {
  const vigil = useFakeVigil();
  const printsVigilVars = (file: string) => ['sh', '-c', `echo "job=\${VIGIL_JOB-unset} workflow=\${VIGIL_WORKFLOW-unset} worker=\${VIGIL_WORKER-unset} pool=\${VIGIL_POOL-unset} item=\${VIGIL_ITEM-unset} attempt=\${VIGIL_ATTEMPT-unset} input=\${VIGIL_ITEM_INPUT-unset}" > ${file}`];

  it("a pool item's child: no job's variables left over from the runner's environment", async () => {
    // Prepare: a pool runner started inside a job workflow's child
    const fake = await vigil.fakeVigil((_method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length > 1 ? { status: 204 } : claimedReply('item-1', Date.now() + 60_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    const file = join(vigil.scratch(), 'pool-child-env');
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'a', '--endpoint', fake.url, '--', ...printsVigilVars(file)], {
      env: { VIGIL_JOB: 'outer-job', VIGIL_WORKFLOW: 'outer-wf', VIGIL_WORKER: 'outer-w', VIGIL_TOKEN: 'outer-token' },
      timeoutMs: 45_000,
    });
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(readFileSync(file, 'utf8').trim()).toBe('job=unset workflow=unset worker=unset pool=pool-1 item=item-1 attempt=1 input={"n":1}');
  });

  it("a job workflow's child: no pool item's variables left over from the runner's environment", async () => {
    // Prepare: a job runner started inside a pool item's child
    const fake = await vigil.fakeVigil((_method, path) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 120_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return errorReply(403, 'forbidden', 'client route');
    });
    const file = join(vigil.scratch(), 'job-child-env');
    // Act
    const result = await runVigil(
      ['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--stuck-threshold', '60', '--', ...printsVigilVars(file)],
      { env: { VIGIL_POOL: 'outer-pool', VIGIL_ITEM: 'outer-item', VIGIL_ATTEMPT: '3', VIGIL_ITEM_INPUT: '{}', VIGIL_TOKEN: 'outer-token' }, timeoutMs: 45_000 },
    );
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(readFileSync(file, 'utf8').trim()).toBe('job=job-1 workflow=wf-1 worker=w pool=unset item=unset attempt=unset input=unset');
  });
});
