import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { getJob } from '../../shared/app/get-job.js';
import { getJobTokens } from '../../shared/app/get-job-tokens.js';
import { cancelGateJob } from '../../shared/app/gate/cancel-gate-job.js';
import { getGateJob } from '../../shared/app/gate/get-gate-job.js';
import { submitGateJob } from '../../shared/app/gate/submit-gate-job.js';
import { getGateJobHistory } from '../../shared/app/history/get-gate-job-history.js';
import { getJobHistory } from '../../shared/app/history/get-job-history.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { InvalidRequestError } from '../../shared/domain/errors.js';
import { DEFAULT_TENANT } from '../../shared/domain/tenant.js';
import { at, T0 } from '../support/fixtures.js';
import { useGateWorld } from './support/gate-world.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

const DAY = 24 * 3600 * 1000;

/** DynamoDB TTL removed the finished job's item (30 days after it finished); nothing else of it has expired yet. */
const expireJobItem = (t: TestManager, jobId: string) =>
  t.dynamo.doc.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: `JOB#${jobId}`, sk: 'JOB' } }));

describe('the decision history of a reused job id (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });

  it("another tenant's new job under a reused id shows only its own history, never the old job's final status and cancel reason", async () => {
    // Prepare: tenant acme's job is cancelled with a reason; its item expires 30 days later (history items live 31 days).
    await submit(m, { jobId: 'job-1', tenant: 'acme', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'w-a' }] });
    await cancelJob(m.deps, 'job-1', 'acme secret: merger with globex', 'acme');
    m.clock.set(T0 + 30 * DAY + 3_600_000);
    await expireJobItem(m, 'job-1');
    // Act: tenant bob submits the id again and reads its history.
    await submit(m, { jobId: 'job-1', tenant: 'bob', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-x', workerId: 'w-x' }] });
    const history = await getJobHistory(m.deps, 'job-1', 'bob');
    // Assess
    expect(history.status).toBe('RUNNING');
    expect(JSON.stringify(history.entries)).not.toContain('merger');
    expect(history.entries.map((e) => e['kind'])).toEqual(['submitted']);
  });

  it("an extension in the new job under a reused id is shown with the new job's worker, not the old job's worker", async () => {
    // Prepare: acme's hour-long job is cancelled at once; its item expires 30 days later, its workflow items (retained past its latest end) a little after.
    await submit(m, { jobId: 'job-1', tenant: 'acme', timeoutSeconds: 3_600, workflows: [{ workflowId: 'wf-z', workerId: 'acme-payroll-worker' }] });
    await cancelJob(m.deps, 'job-1', undefined, 'acme');
    m.clock.set(T0 + 30 * DAY + 600_000);
    await expireJobItem(m, 'job-1');
    const fresh = await submit(m, { jobId: 'job-1', tenant: 'bob', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-a', workerId: 'bob-worker' }] });
    // Act
    const granted = await requestExtension(m.deps, { workerId: 'bob-worker', token: tokenOf(fresh, 'wf-a'), currentProgress: 0.2 });
    expect(granted.granted).toBe(true);
    const history = await getJobHistory(m.deps, 'job-1', 'bob');
    // Assess
    const extension = history.entries.find((e) => e['kind'] === 'extension');
    expect(extension?.['workerId']).toBe('bob-worker');
  });

  it("names a granted worker from the job's grant records, without reading the job's many workflows", async () => {
    // Prepare: 300 workflows, two of them one worker's, who is granted an extension
    const workflows = Array.from({ length: 300 }, (_, i) => ({ workflowId: `wf-${i}`, workerId: i === 250 || i === 7 ? 'granted-worker' : `w-${i}` }));
    const submitted = await submit(m, { jobId: 'job-big', timeoutSeconds: 600, workflows });
    const granted = await requestExtension(m.deps, { workerId: 'granted-worker', token: tokenOf(submitted, 'wf-250'), currentProgress: 0.2 });
    expect(granted.granted).toBe(true);
    const workflowReads = vi.spyOn(m.deps.jobs, 'getJobWithWorkflows');
    // Act
    const history = await getJobHistory(m.deps, 'job-big');
    // Assess
    expect(history.entries.filter((e) => e['kind'] === 'extension').map((e) => e['workerId'])).toEqual(['granted-worker']);
    expect(workflowReads).not.toHaveBeenCalled();
  });
});

describe('GET /jobs cursors (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });
  const forged = (cursor: unknown) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

  // Behind the cursor's seal (page-cursors.ts), the store still refuses a position it never gives out.
  it('a forged position the store never issues (a day before 1970, or a non-text position) is refused with 400', async () => {
    // Prepare: a job the caller sees without a cursor.
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const today = Math.floor(m.clock.now() / DAY);
    // Act
    const answers = await Promise.all(
      [forged({ day: -5 }), forged({ day: -1e308 }), forged({ day: today, after: 5 }), forged({ day: today, after: { S: 'x' } })].map((cursor) =>
        m.deps.history!.listJobs({ tenant: DEFAULT_TENANT, limit: 10, cursor }).then(
          (page) => ({ page }),
          (error: unknown) => ({ error: error instanceof InvalidRequestError ? 'invalid_request' : String(error) }),
        ),
      ),
    );
    // Assess
    expect(answers).toEqual([{ error: 'invalid_request' }, { error: 'invalid_request' }, { error: 'invalid_request' }, { error: 'invalid_request' }]);
  });
});

describe('job view and token cursors (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });
  const settle = <T>(answer: Promise<T>) =>
    answer.then(
      (page) => ({ page }),
      (error: unknown) => ({ error: error instanceof InvalidRequestError ? 'invalid_request' : String(error) }),
    );

  it('GET /jobs/{jobId}?cursor= with a position past the last workflow (never a nextCursor) is a 400, not an empty page', async () => {
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    expect([await settle(getJob(m.deps, 'job-1', undefined, '99999')), await settle(getJob(m.deps, 'job-1', undefined, '0'))]).toEqual([
      { error: 'invalid_request' },
      { error: 'invalid_request' },
    ]);
  });

  it('GET /jobs/{jobId}/tokens?cursor= with an id that is no workflow of the job is a 400, not an empty page', async () => {
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    expect(await settle(getJobTokens(m.deps, 'job-1', 'zzz-not-a-workflow'))).toEqual({ error: 'invalid_request' });
  });
});

describe("review: the gate's history agrees with its job (dynalite)", () => {
  const w = useGateWorld();

  it("a gate cancel that reached regions after they completed leaves the job COMPLETED, and its history's final entry says COMPLETED", async () => {
    // Prepare: the gate keeps its history and jobs list, as deployed.
    const dynamo = w.manager('us-east-1').dynamo;
    w.gate.history = new DynamoHistoryStore(dynamo.doc, await dynamo.table(false), () => w.clock.now());
    const submitted = await submitGateJob(w.gate, {
      jobId: 'g-1',
      timeoutSeconds: 60,
      datacenters: {
        'us-east-1': { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        'eu-west-1': { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    });
    await w.pump();
    w.clock.set(at(5));
    for (const region of w.managers.keys()) {
      const s = region === 'us-east-1' ? 'us' : 'eu';
      const token = submitted.view.datacenters[region]?.workflows[0]?.token ?? '';
      await completeWorkflow(w.manager(region).deps, { jobId: 'g-1', workflowId: `wf-${s}`, workerId: `worker-${s}`, outcome: 'completed', token });
    }
    // Act: the cancel lands at the gate before the final statuses.
    await cancelGateJob(w.gate, 'g-1', 'no longer needed');
    await w.pump();
    // Assess
    expect((await getGateJob(w.gate, 'g-1')).status).toBe('COMPLETED');
    const history = await getGateJobHistory(w.gate, 'g-1');
    expect(history.status).toBe('COMPLETED');
    expect(history.entries.filter((e) => e['kind'] === 'final').map((e) => e['status'])).toEqual(['COMPLETED']);
  });
});
