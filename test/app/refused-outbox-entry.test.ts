import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createEventBridgeBus } from '../../shared/adapters/aws/eventbridge-bus.js';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import type { EpochMs } from '../../shared/domain/time.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { at, GATE_REGION } from '../support/fixtures.js';
import { useTestManager } from './support/test-manager.js';

/**
 * The outbox published through the real EventBridge adapter, against a
 * mocked SDK that refuses one detail-type for good with a documented non-retryable per-entry code
 * (a bus resource policy or an `events:detail-type` IAM condition that does not list it). Every other
 * entry is accepted. Time runs forward through the backstop sweep, as deployed.
 */
describe('an outbox entry EventBridge refuses for good (dynalite + mocked EventBridge)', () => {
  const m = useTestManager();
  const eventBridge = mockClient(EventBridgeClient);
  afterAll(() => eventBridge.restore());
  const accepted: PutEventsRequestEntry[] = [];
  const offered: PutEventsRequestEntry[] = [];

  beforeEach(() => {
    eventBridge.reset();
    accepted.length = 0;
    offered.length = 0;
    eventBridge.on(PutEventsCommand).callsFake(({ Entries = [] }: { Entries?: PutEventsRequestEntry[] }) => {
      offered.push(...Entries);
      const results = Entries.map((entry) => {
        if (entry.DetailType === 'JobLeaderTransfer') return { ErrorCode: 'NotAuthorizedForDetailTypeException', ErrorMessage: 'not allowed' };
        accepted.push(entry);
        return { EventId: `id-${accepted.length}` };
      });
      return { FailedEntryCount: results.filter((r) => 'ErrorCode' in r).length, Entries: results };
    });
  });

  const useEventBridge = () => {
    m.deps.bus = createEventBridgeBus({ client: new EventBridgeClient({ region: 'eu-west-1' }), eventBusName: 'vigil-bus', retryBaseDelayMs: 0 });
  };

  /**
   * A gate-coordinated job taken over `takeovers` times while the bus was down, then cancelled through
   * the gate (a cancel made at the region would also be re-sent to the gate until it answers, which
   * no gate does here): its outbox holds them all.
   */
  async function cancelledAfterTakeovers(takeovers: number) {
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 3_600, gateRegion: GATE_REGION, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    for (let i = 1; i <= takeovers; i++) {
      m.clock.set(at(i));
      await takeOverJob(m.deps, 'job-1');
    }
    m.clock.set(at(takeovers + 1));
    await onGateDecision(m.deps, { kind: 'JobGlobalCancel', detail: JobGlobalCancel.parse({ jobId: 'job-1', region: m.deps.region, reason: 'operator', version: 1 }) });
    const job = await m.getJob('job-1');
    expect(job.status).toBe('CANCELLED');
    expect(job.outbox?.map((event) => event.detailType)).toEqual([...Array<string>(takeovers).fill('JobLeaderTransfer'), 'JobFinalStatus']);
  }

  /**
   * The sweep every `stepS` seconds for `hours`, as deployed. A sweep at a tick before the earliest
   * wake-up in the timer index plus the grace finds nothing overdue and only reads the index, so the
   * clock jumps straight to the next tick that fires something (a day of empty sweeps took 10 s).
   * Only the sweep moves the index here (the recording timers deliver nothing they are asked to arm),
   * so once it is empty every sweep left would find nothing.
   */
  async function sweepFor(fromS: number, hours: number, stepS = 300) {
    const lastS = fromS + hours * 3_600;
    for (let s = fromS; s <= lastS; s += stepS) {
      const earliest = await earliestWakeUp();
      if (earliest === undefined) break;
      while (s <= lastS && at(s) - SWEEP_GRACE_MS < earliest) s += stepS;
      if (s > lastS) break;
      m.clock.set(at(s));
      await sweepJobTimers(m.deps);
    }
    // Where the last tick leaves the clock, as when every sweep ran.
    m.clock.set(at(fromS + Math.floor((lastS - fromS) / stepS) * stepS));
  }

  async function earliestWakeUp(): Promise<EpochMs | undefined> {
    const wakeUps = await m.jobs.findDueTimers(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    return wakeUps.length === 0 ? undefined : Math.min(...wakeUps.map((wakeUp) => wakeUp.dueAt));
  }

  it('events queued behind a refused chunk still reach EventBridge: the JobFinalStatus of a cancelled job is published', async () => {
    // Prepare: eleven takeovers during an outage fill the first PutEvents chunk with refused entries
    await cancelledAfterTakeovers(11);
    useEventBridge();
    // Act: the bus is back; a day of sweeps
    await sweepFor(60, 24);
    // Assess: the job's final status, accepted by EventBridge the moment it is offered, was offered
    expect(offered.filter((entry) => entry.DetailType === 'JobFinalStatus')).not.toHaveLength(0);
  }, 120_000);

  it('a refused entry is let go (not retried for ever), and the entry beside it that EventBridge accepted is not published again', async () => {
    // Prepare: one takeover during an outage, then the cancel: [JobLeaderTransfer (refused), JobFinalStatus (accepted)]
    await cancelledAfterTakeovers(1);
    useEventBridge();
    // Act: three days of sweeps
    await sweepFor(60, 72);
    // Assess: the accepted JobFinalStatus was forwarded to the gate once (or a few times), not ~300 times;
    // the refused entry ends somewhere (dropped, dead-lettered, counted), not on a wake-up for ever
    const job = await m.getJob('job-1');
    expect({
      finalStatusAccepted: accepted.filter((entry) => entry.DetailType === 'JobFinalStatus').length,
      stillRetrying: job.timerDueAt !== undefined && (job.outbox?.length ?? 0) > 0,
    }).toEqual({ finalStatusAccepted: 1, stillRetrying: false });
  }, 120_000);
});
