import { randomUUID } from 'node:crypto';
import { DynamoJobStore } from '../../../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../../../../shared/adapters/aws/dynamo-pool-store.js';
import { ensureTable } from '../../../../shared/adapters/aws/jobs-table.js';
import { fireManagerTimer } from '../../../../shared/app/fire-manager-timer.js';
import type { ManagerDeps } from '../../../../shared/app/manager-deps.js';
import { sweepJobTimers, type SweepOptions } from '../../../../shared/app/sweep-job-timers.js';
import { PageCursors } from '../../../../shared/app/page-cursors.js';
import { WorkflowTokens } from '../../../../shared/app/workflow-tokens.js';
import type { EpochMs } from '../../../../shared/domain/time.js';
import type { TimerRequest, Timers } from '../../../../shared/ports/timers.js';
import { MemoryDynamo } from '../../../../shared/simulation/dynamo/memory-dynamo.js';
import { MANAGER_ID, policy, REGION, T0 } from '../../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTelemetry } from '../../support/recording-ports.js';
import type { TimeoutPolicy } from '../../../../shared/domain/policy.js';

/** SQS caps DelaySeconds at 15 minutes; a later wake-up is a Scheduler schedule (sqs-scheduler-timers.ts). */
const SQS_HORIZON_MS = 15 * 60_000;
const SCHEDULE_LEAD_MS = 3 * 60_000;

interface InFlight {
  timer: TimerRequest;
  deliverAt: EpochMs;
}

/**
 * The AWS timers as deployed (SQS delay up to 15 min, else a Scheduler schedule that lands in the
 * same queue 3 min early), with a switch for a region-wide Scheduler outage (schedules never fire)
 * and a way to lose one job's messages.
 */
export class OutageTimers implements Timers {
  readonly inFlight: InFlight[] = [];
  schedulerDown = false;
  readonly lost = new Set<string>();
  /** Every wake-up asked for, delivered or not. */
  readonly armed: TimerRequest[] = [];
  constructor(private readonly clock: ManualClock) {}

  async arm(timer: TimerRequest): Promise<void> {
    this.armed.push(timer);
    if (this.lost.has(timer.jobId)) return;
    const now = this.clock.now();
    if (timer.dueAt - now <= SQS_HORIZON_MS) this.inFlight.push({ timer, deliverAt: Math.max(now, timer.dueAt) });
    else if (!this.schedulerDown) this.inFlight.push({ timer, deliverAt: timer.dueAt - SCHEDULE_LEAD_MS });
  }

  async disarm(): Promise<void> {}

  /** Takes out every message due by `now`, oldest first. */
  takeDue(now: EpochMs): TimerRequest[] {
    const due = this.inFlight.filter((m) => m.deliverAt <= now).sort((a, b) => a.deliverAt - b.deliverAt);
    for (const m of due) this.inFlight.splice(this.inFlight.indexOf(m), 1);
    return due.map((m) => m.timer);
  }
}

export interface OutageCloud {
  deps: ManagerDeps;
  clock: ManualClock;
  timers: OutageTimers;
  bus: RecordingBus;
  telemetry: RecordingTelemetry;
  jobs: DynamoJobStore;
  /**
   * Runs the region from now to `until` in 1 s steps: delivers due SQS messages (a failed handler is
   * redelivered a second later, as SQS would after its visibility timeout, kept short here), and runs
   * the backstop sweep once a minute at `sweepPhaseMs` past each minute of T0, as on AWS.
   */
  runUntil(until: EpochMs, onStep?: (now: EpochMs) => Promise<void>): Promise<void>;
  sweeps: Array<{ at: EpochMs; fired: number }>;
}

export async function outageCloud(
  options: { policy?: Partial<TimeoutPolicy>; sweepPhaseMs?: number; start?: EpochMs; sweep?: SweepOptions } = {},
): Promise<OutageCloud> {
  const memory = new MemoryDynamo();
  const tableName = `vigil-review-${randomUUID().slice(0, 8)}`;
  await ensureTable(memory.client, tableName, true);
  const clock = new ManualClock(options.start ?? T0);
  const timers = new OutageTimers(clock);
  const bus = new RecordingBus();
  const telemetry = new RecordingTelemetry();
  const jobs = new DynamoJobStore(memory.doc, tableName);
  const deps: ManagerDeps = {
    region: REGION,
    managerId: MANAGER_ID,
    jobs,
    pools: new DynamoPoolStore(memory.doc, tableName),
    timers,
    bus,
    clock,
    policy: policy(options.policy),
    tokens: new WorkflowTokens(Buffer.from('review-outage-secret')),
    cursors: new PageCursors(Buffer.from('review-outage-secret')),
    telemetry,
  };
  const phase = options.sweepPhaseMs ?? 1_000;
  const sweeps: Array<{ at: EpochMs; fired: number }> = [];
  return {
    deps,
    clock,
    timers,
    bus,
    telemetry,
    jobs,
    sweeps,
    async runUntil(until, onStep) {
      for (let now = clock.now(); now <= until; now += 1_000) {
        clock.set(now);
        if (onStep) await onStep(now);
        for (const timer of timers.takeDue(now)) {
          await fireManagerTimer(deps, timer).catch(() => timers.inFlight.push({ timer, deliverAt: now + 1_000 }));
        }
        if ((((now - T0 - phase) % 60_000) + 60_000) % 60_000 === 0) {
          const { fired } = await sweepJobTimers(deps, options.sweep);
          sweeps.push({ at: now, fired });
        }
      }
    },
  };
}
