import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../functions/api/cancel-job.js';
import { handler as getJobHistory } from '../../functions/api/get-job-history.js';
import { handler as getJobTokens } from '../../functions/api/get-job-tokens.js';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as listJobs } from '../../functions/api/list-jobs.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { handler as takeOverJob } from '../../functions/api/take-over-job.js';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { JobNotFoundError } from '../../shared/domain/errors.js';
import { DEFAULT_TENANT } from '../../shared/domain/tenant.js';
import { installManagerResolver } from '../../shared/wiring/manager-resolver.js';
import { startTestDynamo } from '../support/dynalite.js';
import { invoke, type HttpAnswer, type HttpRequest } from './support/http-events.js';
import { testManager, type TestDynamo, type TestManager } from './support/test-manager.js';

/** Two tenants: T signs its calls with any session of one role (AWS); U is the default tenant (no IAM, no header). */
const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
const TENANTS = { T, U: DEFAULT_TENANT } as const;
type Actor = keyof typeof TENANTS;
const callerOf = (actor: Actor, session: number): Pick<HttpRequest, 'iamUserArn'> => (actor === 'T' ? { iamUserArn: `${T}/session-${session}` } : {});

const OPS = ['submit', 'get', 'cancel', 'takeover', 'tokens', 'history', 'list'] as const;
type Op = (typeof OPS)[number];
const JOB_IDS = ['job-0', 'job-1', 'job-2'] as const;
interface Call {
  actor: Actor;
  session: number;
  op: Op;
  jobId: string;
}

function request(call: Call): Parameters<typeof invoke> {
  const caller = callerOf(call.actor, call.session);
  const path = { pathParameters: { jobId: call.jobId } };
  switch (call.op) {
    case 'submit':
      // Both tenants send the same body for a jobId: only the tenant tells them apart.
      return [submitJob, { method: 'POST', route: '/jobs', body: { jobId: call.jobId, timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }, ...caller }];
    case 'get':
      return [getJob, { method: 'GET', route: '/jobs/{jobId}', ...path, ...caller }];
    case 'cancel':
      return [cancelJob, { method: 'POST', route: '/jobs/{jobId}/cancel', ...path, body: {}, ...caller }];
    case 'takeover':
      return [takeOverJob, { method: 'POST', route: '/jobs/{jobId}/takeover', ...path, ...caller }];
    case 'tokens':
      return [getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...path, ...caller }];
    case 'history':
      return [getJobHistory, { method: 'GET', route: '/jobs/{jobId}/history', ...path, ...caller }];
    case 'list':
      return [listJobs, { method: 'GET', route: '/jobs', ...caller }];
  }
}

/** Whose an item is: a job's items are its owner's, a listing row and a worker are their tenant's. */
function ownerOfItem(item: Record<string, unknown>, owners: ReadonlyMap<string, string>): string {
  const pk = String(item['pk']);
  const jobId = /^(?:JOB|HISTORY)#(.*)$/.exec(pk)?.[1] ?? (pk.startsWith('JOBLIST#') ? String(item['jobId']) : undefined);
  if (jobId !== undefined) return owners.get(jobId) ?? 'nobody';
  const worker = /^WORKER#(.*)$/.exec(pk)?.[1];
  if (worker !== undefined) return worker.includes('|') ? worker.slice(0, worker.lastIndexOf('|')) : DEFAULT_TENANT;
  return 'nobody';
}

const notFound = (jobId: string): HttpAnswer => ({ statusCode: 404, body: { error: { code: 'job_not_found', message: new JobNotFoundError(jobId).message } } });

describe('property: no call of one tenant ever changes or reveals another tenant\'s job (dynalite)', () => {
  let dynamo: TestDynamo;
  let m: TestManager;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    installManagerResolver(async () => m.deps);
  });
  afterAll(() => dynamo.close());

  it('random interleavings of two tenants\' submit, get, cancel, takeover, tokens, history and list', async () => {
    const actor = fc.constantFrom<Actor>('T', 'U');
    const session = fc.integer({ min: 1, max: 3 });
    const jobId = fc.constantFrom(...JOB_IDS);
    // Most jobs exist early (submitted by either tenant), so most calls meet a job someone owns.
    const submits = fc.array(fc.record({ actor, session, op: fc.constant<Op>('submit'), jobId }), { minLength: 1, maxLength: 4 });
    const calls = fc
      .tuple(submits, fc.array(fc.record({ actor, session, op: fc.constantFrom(...OPS), jobId }), { minLength: 1, maxLength: 12 }))
      .map(([first, rest]) => [...first, ...rest]);
    await fc.assert(
      fc.asyncProperty(calls, async (script) => {
        m = await testManager(dynamo);
        m.deps.history = new DynamoHistoryStore(m.doc, m.tableName, () => m.clock.now());
        const owners = new Map<string, string>();
        const tokensOf = new Map<string, string[]>();
        for (const call of script) {
          const tenant = TENANTS[call.actor];
          const othersItems = async () => (await m.snapshot()).filter((item) => ownerOfItem(item, owners) !== tenant);
          const before = await othersItems();
          const answer = await invoke(...request(call));
          const owner = owners.get(call.jobId);
          if (call.op === 'submit' && owner === undefined) {
            expect(answer.statusCode).toBe(201);
            owners.set(call.jobId, tenant);
            tokensOf.set(call.jobId, (answer.body['workflows'] as Array<{ token: string }>).map((w) => w.token));
          }

          // Nothing of another tenant changed, whatever the call and its answer.
          expect(await othersItems()).toEqual(before);
          // Nothing of another tenant is revealed: none of its jobs' tokens, none of its jobs listed.
          const text = JSON.stringify(answer.body);
          for (const [jobId, tokens] of tokensOf) if (owners.get(jobId) !== tenant) for (const token of tokens) expect(text).not.toContain(token);
          if (call.op === 'list') {
            expect(answer.statusCode).toBe(200);
            const listed = (answer.body['jobs'] as Array<{ jobId: string }>).map((row) => row.jobId);
            expect(listed.sort()).toEqual([...owners].filter(([, t]) => t === tenant).map(([jobId]) => jobId).sort());
          } else if (call.op === 'submit') {
            if (owner !== undefined) expect(answer.statusCode).toBe(owner === tenant ? 200 : 409);
          } else if (owner !== tenant) {
            // Another tenant's job answers exactly as a job that does not exist.
            expect(answer).toEqual(notFound(call.jobId));
          } else {
            expect([200, 409]).toContain(answer.statusCode);
            if (call.op === 'get' || call.op === 'tokens' || call.op === 'history') expect(answer.statusCode).toBe(200);
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
