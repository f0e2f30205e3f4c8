import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { parsePoolSubmission } from '../../shared/contract/parse-pool-submission.js';
import { countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command (tsx compiles on start) or waits on real processes.
vi.setConfig({ testTimeout: 60_000 });

/** A region manager's GET /jobs/{id} answer with these workflows. */
const jobBody = (status: string, workflowIds: string[], nextCursor?: string) => ({
  jobId: 'job-1',
  status,
  strategy: 'local_authority',
  fenceToken: 1,
  deadlineAt: iso(Date.now() + 300_000),
  timeoutTracking: {
    startedAt: iso(Date.now()),
    lastProgressAt: iso(Date.now()),
    timeoutSeconds: 300,
    stuckThresholdSeconds: 120,
    totalExtensionsGranted: 0,
    effectiveDeadlineAt: iso(Date.now() + 300_000),
    locallyTimedOut: false,
    globallyTimedOut: false,
  },
  workflows: workflowIds.map((workflowId) => ({ workflowId, workerId: 'w', state: 'running', progress: 0.5 })),
  ...(nextCursor ? { nextCursor } : {}),
});

describe('the vigil command shows whole answers and refuses bad flags', () => {
  const vigil = useFakeVigil();

  it('vigil status shows every workflow of a job whose answer is paged (nextCursor), not only the first page', async () => {
    // Prepare: the manager pages GET /jobs/{id} (docs/api.md: at most 1,000 workflows per answer, then nextCursor)
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'GET' && path.startsWith('/jobs/job-1')) {
        return path.includes('cursor=') ? { status: 200, body: jobBody('RUNNING', ['wf-page-2']) } : { status: 200, body: jobBody('RUNNING', ['wf-page-1'], '0') };
      }
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess: "a progress bar per workflow" — the second page's workflow is part of the job
    expect(result.code, result.transcript).toBe(0);
    expect(result.stdout, result.transcript).toContain('wf-page-2');
  });

  it('vigil watch with a bad --interval exits 2 naming the flag, and calls nothing', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: jobBody('COMPLETED', ['wf-1']) }));
    // Act
    const result = await runVigil(['watch', 'job-1', '--interval', 'soon', '--endpoint', fake.url]);
    // Assess: contract "2 bad usage or bad input (the message says how to fix it)"
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('--interval');
    expect(fake.seen.length, result.transcript).toBe(0);
  });

  it('vigil pools create of a valid YAML file written in flow style ({…}) without a poolId creates the pool', async () => {
    // Prepare: YAML is a superset of JSON; the fake parses the body exactly as the manager does
    const fake = await vigil.fakeVigil((method, path, body) => {
      if (method !== 'POST' || path !== '/pools') return errorReply(404, 'route_not_found', 'no');
      try {
        const pool = parsePoolSubmission(typeof body === 'string' ? body : JSON.stringify(body), typeof body === 'string' ? 'application/yaml' : 'application/json');
        return { status: 201, body: { poolId: pool.poolId ?? 'generated', status: 'RUNNING', items: pool.items.length, config: {} } };
      } catch (error) {
        return errorReply(400, 'invalid_request', (error as Error).message);
      }
    });
    const file = join(vigil.scratch(), 'flow-pool.yaml');
    writeFileSync(file, '{ "items": [ { "itemId": "i-1", "input": { "n": 1 } } ], "map": { "agent_timeout_secs": 60 } }\n');
    // Act
    const result = await runVigil(['pools', 'create', file, '--endpoint', fake.url]);
    // Assess
    expect(result.code, `${result.transcript}\nsent: ${JSON.stringify(fake.seen[0]?.body)}`).toBe(0);
  });
});

describe('vigil submit shows every token', () => {
  const vigil = useFakeVigil();

  it('vigil submit of a job larger than one token page prints (or fetches) the tokens of every workflow', async () => {
    // Prepare: docs/api.md — the submit answer holds the first 1,000 tokens and a nextCursor; the rest is at GET /jobs/{id}/tokens?cursor=
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'POST' && path === '/jobs') {
        return { status: 201, body: { jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000), workflows: [{ workflowId: 'wf-1', workerId: 'w', token: 'token-page-1' }], nextCursor: 'wf-1' } };
      }
      if (method === 'GET' && path.startsWith('/jobs/job-1/tokens')) return { status: 200, body: { workflows: [{ workflowId: 'wf-2', workerId: 'w', token: 'token-page-2' }] } };
      return errorReply(404, 'route_not_found', 'no');
    });
    const file = join(vigil.scratch(), 'big-job.json');
    writeFileSync(file, JSON.stringify({ jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'w' }, { workflowId: 'wf-2', workerId: 'w' }] }));
    // Act
    const result = await runVigil(['submit', file, '--endpoint', fake.url]);
    // Assess: a worker of wf-2 needs its token; the output neither shows it nor says where it is
    expect(result.code, result.transcript).toBe(0);
    expect(result.stdout, result.transcript).toMatch(/token-page-2|tokens\?cursor|nextCursor/);
  });
});


describe('vigil escalations answer and vigil cancel', () => {
  const vigil = useFakeVigil();

  it('split --subtasks FILE sends the subtasks from a YAML list; a bad --timeout exits 2 naming the flag and calls nothing', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { escalationId: 'p~i~3', state: 'split' } }));
    const file = join(vigil.scratch(), 'subtasks.yaml');
    writeFileSync(file, '- itemId: i-a\n  input: { part: 1 }\n- itemId: i-b\n');
    // Act
    const split = await runVigil(['escalations', 'answer', 'p~i~3', 'split', '--subtasks', file, '--endpoint', fake.url]);
    const badTimeout = await runVigil(['escalations', 'answer', 'p~i~3', 'increase_timeout', '--timeout', 'long', '--endpoint', fake.url]);
    // Assess
    expect(split.code, split.transcript).toBe(0);
    expect(fake.seen.map(({ method, path, body }) => ({ method, path, body }))).toEqual([
      { method: 'POST', path: '/escalations/p~i~3/answer', body: { option: 'split', subtasks: [{ itemId: 'i-a', input: { part: 1 } }, { itemId: 'i-b' }] } },
    ]);
    expect(badTimeout.code, badTimeout.transcript).toBe(2);
    expect(badTimeout.stderr).toContain('--timeout');
  });

  // First-time user: increase_timeout without --timeout was refused by the API naming its field, timeoutSeconds.
  it.each([
    ['increase_timeout', '--timeout'],
    ['clarify', '--clarification'],
    ['split', '--subtasks'],
  ])('vigil escalations answer ID %s without %s exits 2 naming that flag (not the API field), and calls nothing', async (option, flag) => {
    // Prepare
    const fake = await vigil.fakeVigil(() => errorReply(400, 'invalid_request', 'The request is invalid: timeoutSeconds: increase_timeout needs timeoutSeconds'));
    // Act
    const result = await runVigil(['escalations', 'answer', 'p~i~3', option, '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain(`${option} needs ${flag} `);
    expect(result.stderr, result.transcript).not.toMatch(/timeoutSeconds|subtasks:|clarification:/);
    expect(fake.seen).toEqual([]);
  });

  it('vigil dlq retry with a bad --agent-timeout exits 2 naming the flag, and calls nothing', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: {} }));
    // Act
    const result = await runVigil(['dlq', 'retry', 'pool-1', 'item-1', '--agent-timeout', 'abc', '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toContain('--agent-timeout');
    expect(fake.seen).toEqual([]);
  });

  it('vigil cancel whose answer was lost (504) and whose repeat meets 409 job_finished exits 0: the job is CANCELLED by its own first try', async () => {
    // Prepare: the first cancel is applied but API Gateway times out; the SDK's retry finds the job CANCELLED
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/cancel')) {
        return seen.filter((s) => s.path.endsWith('/cancel')).length === 1
          ? { status: 504, text: '{"message": "Endpoint request timed out"}' }
          : errorReply(409, 'job_finished', "Job 'job-1' is already CANCELLED; a finished job cannot change. Submit a new job instead.");
      }
      if (method === 'GET' && path === '/jobs/job-1') {
        return {
          status: 200,
          body: {
            jobId: 'job-1', status: 'CANCELLED', strategy: 'local_authority', fenceToken: 1, timeoutReason: undefined,
            timeoutTracking: { startedAt: iso(Date.now() - 5_000), lastProgressAt: iso(Date.now() - 5_000), timeoutSeconds: 300, stuckThresholdSeconds: 120, totalExtensionsGranted: 0, effectiveDeadlineAt: iso(Date.now() + 295_000), locallyTimedOut: false, globallyTimedOut: false },
            workflows: [{ workflowId: 'wf-1', workerId: 'w', state: 'cancelled', lastProgressAt: iso(Date.now() - 5_000) }],
          },
        };
      }
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['cancel', 'job-1', '--endpoint', fake.url]);
    // Assess: the cancel this command sent is what ended the job: success, not "bad usage"
    expect(countCalls(fake, 'POST', '/cancel'), result.transcript).toBe(2);
    expect(result.code, result.transcript).toBe(0);
  });
});
