import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { progressCoalesceMs } from '../../../shared/domain/deadlines.js';
import { RegionWorker } from '../../support/gate-client.js';
import { pollUntil } from '../../support/poll.js';
import { ok, type JobView } from '../../support/vigil-client.js';
import { passTime, REGIONS, startGateCloud, submitAcross, type GateCloud, type GateCloudOptions, type Region } from './gate-cloud.js';

/**
 * the virtual-clock mode is faithful. One scenario (a plain timeout, a stuck job, a
 * completion before the deadline, an extension that outlives the base deadline, a global timeout across
 * three regions) runs on the system clock (loose: polled to a bound) and on the virtual clock (exact),
 * and ends in the same states. Then the armed wake-ups that AWS cannot withdraw: they fire after a
 * cancel, an extension, or an earlier wake-up that replaced them, and the lazy checks drop them. One
 * local cloud per process at a time, so these run one after the other.
 */
/** Thresholds and deadlines leave seconds of margin around the scenario's steps: its wall-clock run shares two busy cores. */
const EXTENSION_SECONDS = 5;
const cloudOptions = { extensionBaseSeconds: EXTENSION_SECONDS, gateStuckThresholdSeconds: 180 };

/** How a scenario lets time pass while some workers stay alive. */
interface TimeDriver {
  now(): number;
  pass(ms: number, reporting?: readonly RegionWorker[]): Promise<void>;
}

const virtualTime = (gc: GateCloud): TimeDriver => ({
  now: () => gc.clock.now(),
  pass: async (ms, reporting = []) => void (await passTime(gc, ms, { reporting })),
});

const wallTime: TimeDriver = {
  now: () => Date.now(),
  pass: async (ms, reporting = []) => {
    for (const end = Date.now() + ms; Date.now() < end; ) {
      for (const worker of reporting) await worker.beat();
      await sleep(Math.max(0, Math.min(250, end - Date.now())));
    }
  },
};

interface Outcome {
  submittedAt: number;
  lastStuckBeatAt: number;
  jobs: Record<string, string>;
  views: Record<string, JobView>;
}

const final = (view: JobView) => `${view.status}${view.timeoutReason ? `/${view.timeoutReason}` : ''}`;

/** The scenario; `settle` waits (wall clock) or not (virtual) until nothing is RUNNING. */
async function scenario(gc: GateCloud, time: TimeDriver, settle: (read: () => Promise<JobView[]>) => Promise<void>): Promise<Outcome> {
  const run = randomUUID().slice(0, 8);
  const east = gc.region('us-east-1');
  const local = async (name: string, timeoutSeconds: number, stuckThresholdSeconds: number) => {
    const workerId = `w-${name}-${run}`;
    const submitted = ok(await east.submitJob({ jobId: `${name}-${run}`, timeoutSeconds, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId }] }));
    const token = submitted.workflows[0]?.token ?? '';
    return { jobId: submitted.jobId, workerId, token, worker: new RegionWorker(east, submitted.jobId, workerId, token) };
  };
  const submittedAt = time.now();
  // On the wall clock every call takes time (seconds, on a loaded machine): a job whose worker must act
  // before its deadline gets seconds more, and its worker acts right after its submit, whatever the
  // other submits cost. The extended job completes as soon as its base deadline (6 s) has passed, and
  // the passes before may overrun by seconds without reaching its extended one (11 s).
  const completed = await local('completed', 4, 60);
  await completed.worker.complete();
  const extended = await local('extended', 6, 60);
  const extendedAt = time.now();
  await extended.worker.progress(0.1);
  expect(await extended.worker.requestExtension(0.2)).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
  const timeout = await local('timeout', 2, 60);
  const stuck = await local('stuck', 60, 2);
  const global = await submitAcross(gc, { jobId: `global-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 3 });
  const alive = [global.worker('eu-west-1'), global.worker('ap-southeast-2')];

  await time.pass(1_250, [stuck.worker, ...alive]);
  const lastStuckBeatAt = time.now();
  await stuck.worker.beat();
  await time.pass(1_750, alive);
  await time.pass(Math.max(0, extendedAt + 6_250 - time.now()), alive);
  await extended.worker.complete();
  await time.pass(2_000, alive);

  const locals = { timeout, stuck, completed, extended };
  const read = async () => [
    ...(await Promise.all(Object.values(locals).map(async ({ jobId }) => ok(await east.getJob(jobId))))),
    ...(await Promise.all(REGIONS.map(async (region) => ok(await gc.region(region).getJob(global.jobId))))),
  ];
  await settle(read);
  const views = await read();
  const names = [...Object.keys(locals), ...REGIONS.map((region: Region) => `global@${region}`)];
  return {
    submittedAt,
    lastStuckBeatAt,
    jobs: Object.fromEntries(views.map((view, i) => [names[i], final(view)])),
    views: Object.fromEntries(views.map((view, i) => [names[i] ?? '', view])),
  };
}

const expectedFinalStates = {
  timeout: 'TIMED_OUT/timeout',
  stuck: 'TIMED_OUT/stuck',
  completed: 'COMPLETED',
  extended: 'COMPLETED',
  'global@us-east-1': 'TIMED_OUT/global_timeout',
  'global@eu-west-1': 'TIMED_OUT/global_timeout',
  'global@ap-southeast-2': 'TIMED_OUT/global_timeout',
};

async function withCloud<T>(virtualClock: boolean, body: (gc: GateCloud) => Promise<T>, options: GateCloudOptions = {}): Promise<T> {
  const gc = await startGateCloud({ ...cloudOptions, ...options, virtualClock });
  try {
    return await body(gc);
  } finally {
    await gc.close();
  }
}

const droppedWakeUps = async (gc: GateCloud, region: Region, reason: string) => ok(await gc.gate.metrics())[`${region} WakeUpDropped{reason=${reason}}`] ?? 0;

describe('the virtual clock is faithful to the system clock', () => {
  it('the same scenario ends in the same states on both clocks; on the virtual one, at exact instants', async () => {
    // Act: the wall clock (loose: polled until nothing runs, within a generous bound)
    const onWallClock = await withCloud(false, (gc) =>
      scenario(gc, wallTime, async (read) => {
        await pollUntil(async () => ((await read()).every((view) => view.status !== 'RUNNING') ? true : undefined), { what: 'every job to end', timeoutMs: 20_000, intervalMs: 100 });
      }),
    );
    // Act: the virtual clock (nothing to wait for: the advances settled)
    const onVirtualClock = await withCloud(true, (gc) => scenario(gc, virtualTime(gc), async () => {}));

    // Assess: the same final states
    expect(onWallClock.jobs).toEqual(expectedFinalStates);
    expect(onVirtualClock.jobs).toEqual(expectedFinalStates);
    // Assess: virtual instants are exact (deadline, and silence + threshold + coalescing allowance)
    const { views, submittedAt, lastStuckBeatAt } = onVirtualClock;
    expect(Date.parse(views['timeout']?.finishedAt ?? '')).toBe(submittedAt + 2_000);
    expect(Date.parse(views['stuck']?.finishedAt ?? '')).toBe(lastStuckBeatAt + 2_000 + progressCoalesceMs(2));
    expect(Date.parse(views['global@us-east-1']?.finishedAt ?? '')).toBe(submittedAt + 3_000 + progressCoalesceMs(3));
    // Two clouds, one run of seconds on the wall clock and a settle of up to 20 s: more than the default 30 s on a loaded machine.
  }, 90_000);
});

describe('armed wake-ups cannot be withdrawn: they fire and the lazy checks drop them', () => {
  it('after a cancel, the wake-up fires at its due time and is dropped as already_terminal', async () => {
    await withCloud(true, async (gc) => {
      // Prepare: a 5 s job, cancelled after 1 s
      const east = gc.region('us-east-1');
      const submitted = ok(await east.submitJob({ timeoutSeconds: 5, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'w-cancel' }] }));
      const dueAt = gc.clock.now() + 5_000;
      await gc.clock.advance(1_000);
      expect(ok(await east.cancel(submitted.jobId))).toMatchObject({ status: 'CANCELLED' });
      const before = await droppedWakeUps(gc, 'us-east-1', 'already_terminal');

      // Act + Assess: nothing 1 ms before the due time; dropped at it
      await gc.clock.advanceTo(dueAt - 1);
      expect(await droppedWakeUps(gc, 'us-east-1', 'already_terminal')).toBe(before);
      await gc.clock.advanceTo(dueAt);
      expect(await droppedWakeUps(gc, 'us-east-1', 'already_terminal')).toBe(before + 1);
      expect(ok(await east.getJob(submitted.jobId))).toMatchObject({ status: 'CANCELLED' });
    });
  });

  it('after an extension, the old wake-up fires at the old deadline and finds nothing due; once the job completed, the re-armed one is dropped as already_terminal', async () => {
    await withCloud(true, async (gc) => {
      // Prepare: a 2 s job whose worker is granted an extension after 1 s
      const east = gc.region('us-east-1');
      const workerId = `w-ext-${randomUUID().slice(0, 8)}`;
      const submitted = ok(await east.submitJob({ timeoutSeconds: 2, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId }] }));
      const token = submitted.workflows[0]?.token;
      const deadline = Date.parse(submitted.deadlineAt ?? '');
      const extendedDeadline = deadline + EXTENSION_SECONDS * 1_000;
      await gc.clock.advance(1_000);
      ok(await east.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.3 }, token));
      expect(ok(await east.requestExtension(workerId, { reason: 'long_workflow', currentProgress: 0.3 }, token))).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
      const before = await droppedWakeUps(gc, 'us-east-1', 'already_terminal');

      // Act: past the old deadline; the worker completes; to 1 ms before the new deadline, then to it
      await gc.clock.advanceTo(deadline);
      const atOldDeadline = ok(await east.getJob(submitted.jobId));
      await gc.clock.advance(500);
      ok(await east.complete(submitted.jobId, 'wf-1', { workerId, outcome: 'completed' }, token));
      await gc.clock.advanceTo(extendedDeadline - 1);
      const droppedBefore = await droppedWakeUps(gc, 'us-east-1', 'already_terminal');
      await gc.clock.advanceTo(extendedDeadline);

      // Assess
      expect(atOldDeadline.status).toBe('RUNNING');
      expect(droppedBefore).toBe(before);
      expect(await droppedWakeUps(gc, 'us-east-1', 'already_terminal')).toBe(before + 1);
      expect(ok(await east.getJob(submitted.jobId))).toMatchObject({ status: 'COMPLETED' });
    });
  });

  it('a wake-up replaced by an earlier one fires at its old due time and is dropped as superseded_timer, while the job waits for the gate', async () => {
    await withCloud(true, async (gc) => {
      // Prepare: a 15 s job across the regions; us-east-1's worker is granted an extension (deadline 20 s
      // there), so that region's 10 s report re-arms its wake-up for 20 s
      const job = await submitAcross(gc, { jobId: `superseded-${randomUUID().slice(0, 8)}`, timeoutSeconds: 15, stuckThresholdSeconds: 60 });
      const submittedAt = gc.clock.now();
      const east = gc.region('us-east-1');
      const eastWorker = job.worker('us-east-1');
      await gc.clock.advance(1_000);
      await eastWorker.progress(0.1);
      expect(await eastWorker.requestExtension(0.2)).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
      await gc.clock.advanceTo(submittedAt + 10_000);
      // us-east-1 is cut off from the gate, then its worker fails: the grant is retired and the wake-up
      // re-armed for the base deadline (15 s), where the job times out locally and waits for the gate,
      // its next wake-up a report interval later (25 s)
      ok(await gc.gate.setFaults({ cutOff: ['us-east-1'] }));
      await gc.clock.advanceTo(submittedAt + 12_000);
      expect(ok(await east.reportWorkerFailure(eastWorker.workerId))).toMatchObject({ jobsUpdated: 1 });
      const superseded = () => droppedWakeUps(gc, 'us-east-1', 'superseded_timer');
      await gc.clock.advanceTo(submittedAt + 20_000 - 1);
      const before = await superseded();
      const waiting = ok(await east.getJob(job.jobId));

      // Act: the replaced wake-up's due time
      await gc.clock.advanceTo(submittedAt + 20_000);
      const after = await superseded();
      // then the gate is reachable again
      ok(await gc.gate.setFaults({ cutOff: [] }));
      await gc.clock.advanceTo(submittedAt + 40_000);

      // Assess
      expect(waiting).toMatchObject({ status: 'RUNNING' });
      expect(after).toBe(before + 1);
      expect(ok(await east.getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    }, { gateReportIntervalSeconds: 10 });
  });

  it("the gate's wake-up for the global deadline, armed before its decision, fires after it and is dropped as stale_timer", async () => {
    await withCloud(true, async (gc) => {
      // Prepare: a 5 s gate job; us-east-1 goes stuck after 1.5 s and the gate decides at once (a new
      // timeout fence); ap-southeast-2 is cut off, so the gate job stays open, re-sending its decision.
      const job = await submitAcross(gc, { jobId: `stale-${randomUUID().slice(0, 8)}`, timeoutSeconds: 5, stuckThresholdSeconds: 1.5 });
      // The wake-up is armed for the global deadline plus the report grace: an extension granted just before
      // the deadline, or whose immediate report was lost and is carried by the region's next periodic report,
      // must reach the gate before it declares. A region's own local timeout is not delayed.
      const wakeUpAt = gc.clock.now() + (5 + gc.cloud.gate.deps.policy.extensionReportGraceSeconds) * 1_000;
      ok(await gc.gate.setFaults({ cutOff: ['ap-southeast-2'] }));
      await passTime(gc, 2_000, { reporting: [job.worker('eu-west-1'), job.worker('ap-southeast-2')] });
      expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ globallyTimedOut: true });
      const stale = async () => ok(await gc.gate.metrics())['gate WakeUpDropped{reason=stale_timer}'] ?? 0;
      const before = await stale();

      // Act
      await gc.clock.advanceTo(wakeUpAt - 1);
      const justBefore = await stale();
      await gc.clock.advanceTo(wakeUpAt);

      // Assess
      expect(justBefore).toBe(before);
      expect(await stale()).toBe(before + 1);
      expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ globallyTimedOut: true, timeoutReason: 'dc_timeout:us-east-1:stuck' });
    });
  });
});
