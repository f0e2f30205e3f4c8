import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as getJobHandler } from '../../functions/api/get-job.js';
import { batchPut } from '../../shared/adapters/aws/batch-requests.js';
import { JOB_VIEW_PAGE_SIZE } from '../../shared/app/job-views.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { encodeGrants } from '../../shared/domain/extension-ledger.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { REGION } from '../support/fixtures.js';
import { httpEvent } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

/** A page stays far below Lambda's 6 MB answer, the body string escaped inside the JSON envelope included. */
const PAGE_LIMIT_BYTES = 1.5 * 1024 * 1024;
/** Lambda's limit for a synchronous answer: the job's pages together must pass it, or paging would not be needed. */
const LAMBDA_ANSWER_LIMIT_BYTES = 6 * 1024 * 1024;

interface JobPage {
  nextCursor?: string;
  workflows: Array<{ workflowId: string; workerId: string }>;
  timeoutTracking: { totalExtensionsGranted: number; workerExtensions: Array<{ workerId: string }> };
}
const bodyOf = (answer: { body?: string } | undefined): JobPage => JSON.parse(answer?.body ?? '{}') as JobPage;

describe('GET /jobs/{jobId} of a job too large for one answer answers in pages that fit Lambda (dynalite)', () => {
  const m = useHttpTestManager();
  // The largest accepted job (10,000 workflows) took 9.2 MB in one answer; 7,000 take 6.4 MB, past
  // Lambda's 6 MB (asserted below), at 70 % of the writes. The largest job's item and its first answer
  // are test/app/job-item-size.test.ts's and test/app/answer-size.test.ts's.
  const WORKFLOWS = 7_000;
  const longId = (prefix: string, i: number) => `${prefix}-${String(i).padStart(8, '0')}`.padStart(128, 'x');

  // Review finding: the one answer listed every workflow and every worker's extension: 9.2 MB.
  it('7,000 workflows on 7,000 workers with 128-character ids, each with a 128-character step and an extension (6.4 MB in all): every page stays under 6 MB and lists each workflow once, with its worker\'s extension', { timeout: 240_000 }, async () => {
    // Prepare: the submission through the real use case; what each worker's one progress report and
    // one extension would store (20,000 requests through dynalite would take minutes) through the store.
    const workflows = Array.from({ length: WORKFLOWS }, (_, i) => ({ workflowId: longId('wf', i), workerId: longId('worker', i) }));
    await submitJob(m.deps, { jobId: 'job-big', timeoutSeconds: 3_600, stuckThresholdSeconds: 3_600, workflows });
    const stored = await m.jobs.getJobWithWorkflows('job-big');
    if (!stored) throw new Error('job-big is not stored');
    const at = m.clock.now() + 1_000;
    await batchPut(m.dynamo.doc, m.tableName, stored.workflows.map((w) => ({ ...w, pk: 'JOB#job-big', sk: `WF#${w.workflowId}`, gsiWorkerId: w.workerId, lastProgressAt: at, lastHeartbeatAt: at, progress: 0.123456789, step: `step-${w.index}-`.padEnd(128, 's') })));
    const grants = new Map(stored.workflows.map((w) => [w.index, { workerIndex: w.index, epoch: 0, count: 1, seconds: 30 }]));
    await m.jobs.saveJob({ ...stored.job, tracking: { ...stored.job.tracking, workerGrants: encodeGrants(grants) } }, stored.job.version);
    // Each worker's grant record: the last and the first worker's through the store's own write, the
    // other 6,998 as copies of the last one's item, in batches (a conditional update each took 45 s).
    // The copy made for the first worker must be exactly the item the store wrote for it.
    const grantOf = (w: (typeof stored.workflows)[number]) => ({
      jobId: 'job-big', workerId: w.workerId, workerIndex: w.index, epoch: 0, count: 1, seconds: 30, grantedAt: at,
      estimatedCompletion: '2026-03-01T12:30:00.000+05:00', activeWorkflowCount: 1,
    });
    const storedGrant = async (w: (typeof stored.workflows)[number]) => {
      await m.jobs.recordGrant(grantOf(w));
      const { Item } = await m.dynamo.doc.send(new GetCommand({ TableName: m.tableName, Key: m.calls.at(-1)?.input.Key, ConsistentRead: true }));
      if (!Item) throw new Error(`no grant record stored for ${w.workerId}`);
      return Item;
    };
    const model = stored.workflows[WORKFLOWS - 1];
    const checked = stored.workflows[0];
    if (!model || !checked) throw new Error('job-big has too few workflows');
    const modelItem = await storedGrant(model);
    // The model's index (6,999) is no other number of the record: every value naming its worker is swapped.
    const copyFor = (w: (typeof stored.workflows)[number]) =>
      Object.fromEntries(Object.entries(modelItem).map(([name, value]) => [name, typeof value === 'string' ? value.replaceAll(model.workerId, w.workerId) : value === model.index ? w.index : value]));
    expect(copyFor(checked)).toEqual(await storedGrant(checked));
    await batchPut(m.dynamo.doc, m.tableName, stored.workflows.slice(1, -1).map(copyFor));
    // Act: the first page, then each next one
    const get = (cursor?: string) =>
      getJobHandler(httpEvent({ method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-big' }, ...(cursor ? { query: { cursor } } : {}) }), localContext('vigil-test', REGION));
    const answers = [await get()];
    for (let cursor = bodyOf(answers[0]).nextCursor; cursor !== undefined && answers.length < 20; cursor = bodyOf(answers.at(-1)).nextCursor) answers.push(await get(cursor));
    // Assess
    const pages = answers.map(bodyOf);
    expect(answers.every((answer) => answer.statusCode === 200)).toBe(true);
    const pageBytes = answers.map((answer) => Buffer.byteLength(JSON.stringify(answer), 'utf8'));
    for (const bytes of pageBytes) expect(bytes).toBeLessThan(PAGE_LIMIT_BYTES);
    // The boundary: as one answer, these pages would not fit Lambda.
    expect(pageBytes.reduce((sum, bytes) => sum + bytes, 0)).toBeGreaterThan(LAMBDA_ANSWER_LIMIT_BYTES);
    expect(pages).toHaveLength(WORKFLOWS / JOB_VIEW_PAGE_SIZE);
    expect(pages.flatMap((page) => page.workflows.map((w) => w.workflowId))).toEqual(workflows.map((w) => w.workflowId));
    for (const page of pages) {
      expect(page.timeoutTracking.totalExtensionsGranted).toBe(pages[0]?.timeoutTracking.totalExtensionsGranted);
      expect(page.timeoutTracking.workerExtensions.map((e) => e.workerId)).toEqual(page.workflows.map((w) => w.workerId));
    }
  });
});
