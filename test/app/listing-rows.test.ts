import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { OUTBOX_RETRY_MS } from '../../shared/app/decide-and-save.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { cancelGateJob } from '../../shared/app/gate/cancel-gate-job.js';
import type { GateDeps } from '../../shared/app/gate/gate-deps.js';
import { onManagerReport } from '../../shared/app/gate/on-manager-report.js';
import { submitGateJob } from '../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../shared/app/gate/sweep-gate-timers.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { InvalidRequestError } from '../../shared/domain/errors.js';
import { DEFAULT_TENANT } from '../../shared/domain/tenant.js';
import type { HistoryStore } from '../../shared/ports/history-store.js';
import type { TimerRequest } from '../../shared/ports/timers.js';
import { startTestDynamo } from '../support/dynalite.js';
import { at, GATE_REGION, T0 } from '../support/fixtures.js';
import { ManualClock } from './support/recording-ports.js';
import { testManager, useTestManager, type TestDynamo, type TestManager } from './support/test-manager.js';
import { testGateDeps } from './support/test-gate-deps.js';
import { REGIONS, TestRegions } from './support/test-regions.js';
import { FlakyHistory } from './support/flaky-history.js';

const listed = async (history: HistoryStore | undefined) =>
  (await (history as HistoryStore).listJobs({ tenant: DEFAULT_TENANT, limit: 10 })).jobs.map((row) => `${row.jobId}:${row.status}`);

/* ------------------------------------------------------------------------------------------------ */
/* Finding 1: a stale writer's RUNNING row lands after the finished row and is never repaired.       */
/* ------------------------------------------------------------------------------------------------ */

describe('a finished job is never left listed RUNNING by a slower writer (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });

  it("a cancel that lands while submit is still arming its timer leaves the job listed RUNNING for good (submit's row overwrites the CANCELLED row)", async () => {
    // Prepare: submit's first effect (arming its timer; on AWS a Scheduler call) is slow
    let releaseArm!: () => void;
    const armHeld = new Promise<void>((resolve) => (releaseArm = resolve));
    let armReached!: () => void;
    const reachedArm = new Promise<void>((resolve) => (armReached = resolve));
    const realArm = m.timers.arm.bind(m.timers);
    m.timers.arm = async (timer: TimerRequest) => {
      armReached();
      await armHeld;
      return realArm(timer);
    };
    const submitting = submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await reachedArm;
    // Act: the operator cancels the job (it exists), then submit goes on and writes its row
    await cancelJob(m.deps, 'job-1', 'operator');
    const listedRightAfterCancel = await listed(m.deps.history);
    m.timers.arm = realArm;
    releaseArm();
    await submitting;
    // Everything that could repair the row runs: the sweep after any retry, and the job's timer firing.
    m.clock.set(at(60) + OUTBOX_RETRY_MS + 10_000);
    await sweepJobTimers(m.deps);
    const timer = m.timers.current('job-1');
    if (timer) await fireJobTimer(m.deps, timer);
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('CANCELLED');
    expect(listedRightAfterCancel).toEqual(['job-1:CANCELLED']);
    expect(await listed(m.deps.history)).toEqual(['job-1:CANCELLED']);
  });
});

/* ------------------------------------------------------------------------------------------------ */
/* Finding 2: the gate clears viewPending on a finishing decision that wrote no row.                 */
/* ------------------------------------------------------------------------------------------------ */


describe('the gate lists a finished job with its final status even when one view write failed (dynalite)', () => {
  let dynamo: TestDynamo;
  let deps: GateDeps;
  let history: FlakyHistory;
  let clock: ManualClock;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    const managers = new Map<string, TestManager>();
    for (const region of REGIONS) managers.set(region, await testManager(dynamo));
    clock = new ManualClock(T0);
    const gateTable = await dynamo.table(false);
    history = new FlakyHistory(new DynamoHistoryStore(dynamo.doc, gateTable, () => clock.now()));
    deps = testGateDeps(dynamo, gateTable, new TestRegions(managers), clock, { history });
  });

  it('a gate cancel whose row write failed is listed RUNNING forever: the finishing decision (last region confirms) clears viewPending without writing the row', async () => {
    // Prepare
    const datacenters = Object.fromEntries(REGIONS.map((region) => [region, { workflows: [{ workflowId: `wf-${region}`, workerId: 'worker-a' }] }]));
    await submitGateJob(deps, { jobId: 'job-g', timeoutSeconds: 300, datacenters });
    clock.set(at(10));
    history.failures = 1; // the cancel's view write is throttled (logged, the decision stands)
    await cancelGateJob(deps, 'job-g', 'operator');
    // Act: every region confirms the cancel; the last confirmation finishes the gate job
    for (const region of REGIONS) {
      clock.set(at(11));
      await onManagerReport(deps, {
        kind: 'JobFinalStatus',
        detail: { jobId: 'job-g', region, gateRegion: GATE_REGION, managerId: `${region}/m`, status: 'CANCELLED', timestamp: new Date(at(11)).toISOString(), fenceToken: 1 },
      });
    }
    // Whatever retry is left runs
    clock.set(at(11) + OUTBOX_RETRY_MS + 60_000);
    await sweepGateTimers(deps);
    // Assess
    const gateJob = await deps.gates.get('job-g');
    expect(gateJob?.viewPending).toBeUndefined();
    expect(await listed(history)).toEqual(['job-g:CANCELLED']);
  });
});

/* ------------------------------------------------------------------------------------------------ */
/* Finding 3: a cursor this API never issued is answered 200 with an empty list.                     */
/* ------------------------------------------------------------------------------------------------ */

describe('GET /jobs refuses a cursor it did not issue (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });
  const forged = (cursor: unknown) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

  it('a cursor naming a day after today (never issued by this API) is refused with 400, not answered with an empty last page', async () => {
    // Prepare: a job the caller would see without the cursor
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const day = Math.floor(m.clock.now() / 86_400_000);
    const queriesBefore = m.calls.filter((call) => call.command === 'QueryCommand').length;
    // Act
    const answer = m.deps.history!.listJobs({ tenant: DEFAULT_TENANT, limit: 10, cursor: forged({ day: day + 1_000 }) }).then(
      (page) => ({ page }),
      (error: unknown) => ({ error }),
    );
    const settled = await answer;
    // Assess
    const queries = m.calls.filter((call) => call.command === 'QueryCommand').length - queriesBefore;
    expect({ settled, queries }).toMatchObject({ settled: { error: expect.any(InvalidRequestError) }, queries: 0 });
  });
});
