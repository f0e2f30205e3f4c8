import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
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
import { invoke, type HttpAnswer } from './support/http-events.js';
import { callerOf, runIsolated, tenantScripts, usePropertyManagers, type TenantCall } from './support/tenants.js';

const OPS = ['submit', 'get', 'cancel', 'takeover', 'tokens', 'history', 'list'] as const;
type Op = (typeof OPS)[number];
const JOB_IDS = ['job-0', 'job-1', 'job-2'] as const;
type Call = TenantCall<Op>;

function request(call: Call): Parameters<typeof invoke> {
  const caller = callerOf(call.actor, call.session);
  const jobId = call.id;
  const path = { pathParameters: { jobId } };
  switch (call.op) {
    case 'submit':
      // Both tenants send the same body for a jobId: only the tenant tells them apart.
      return [submitJob, { method: 'POST', route: '/jobs', body: { jobId, timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }, ...caller }];
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
  const managers = usePropertyManagers();

  it('random interleavings of two tenants\' submit, get, cancel, takeover, tokens, history and list', async () => {
    // Most jobs exist early (submitted by either tenant), so most calls meet a job someone owns.
    const calls = tenantScripts<Op>('submit', OPS, JOB_IDS, { creates: 4, calls: 12 });
    await fc.assert(
      fc.asyncProperty(calls, async (script) => {
        const m = await managers.fresh();
        m.deps.history = new DynamoHistoryStore(m.doc, m.tableName, () => m.clock.now());
        const tokensOf = new Map<string, string[]>();
        await runIsolated(m, script, {
          create: 'submit',
          request,
          ownerOfItem,
          check: (call, answer, { tenant, owner, owners }) => {
            if (call.op === 'submit' && owner === undefined) tokensOf.set(call.id, (answer.body['workflows'] as Array<{ token: string }>).map((w) => w.token));
            // Nothing of another tenant is revealed: none of its jobs' tokens, none of its jobs listed.
            const text = JSON.stringify(answer.body);
            for (const [jobId, tokens] of tokensOf) if (owners.get(jobId) !== tenant) for (const token of tokens) expect(text).not.toContain(token);
            if (call.op === 'list') {
              expect(answer.statusCode).toBe(200);
              const listed = (answer.body['jobs'] as Array<{ jobId: string }>).map((row) => row.jobId);
              expect(listed.sort()).toEqual([...owners].filter(([, t]) => t === tenant).map(([jobId]) => jobId).sort());
            } else if (call.op !== 'submit' && owner !== tenant) {
              // Another tenant's job answers exactly as a job that does not exist.
              expect(answer).toEqual(notFound(call.id));
            } else if (call.op !== 'submit') {
              expect([200, 409]).toContain(answer.statusCode);
              if (call.op === 'get' || call.op === 'tokens' || call.op === 'history') expect(answer.statusCode).toBe(200);
            }
          },
        });
      }),
      { numRuns: 40 },
    );
  }, 180_000);
});
