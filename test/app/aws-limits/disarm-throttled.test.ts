import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { CreateScheduleCommand, DeleteScheduleCommand, SchedulerClient, ThrottlingException } from '@aws-sdk/client-scheduler';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createSqsSchedulerTimers, SCHEDULE_LEAD_MS } from '../../../shared/adapters/aws/sqs-scheduler-timers.js';
import { cancelJob } from '../../../shared/app/cancel-job.js';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { reportProgress } from '../../../shared/app/report-progress.js';
import { parseTimerMessage } from '../../../shared/adapters/aws/timer-message.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import type { BusEvent } from '../../../shared/ports/event-bus.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';
import { at } from '../../support/fixtures.js';
import { claim, newPool, send } from '../pools/pool-test-support.js';
import { submit, tokenOf, useTestManager } from '../support/test-manager.js';

/**
 * Review finding (AWS limits): every job that finishes asks Scheduler to delete its schedule
 * (`finishJob` → `DisarmTimer` → `DeleteSchedule`), whether or not it ever had one: a job due within
 * 15 minutes only ever had an SQS message. DeleteSchedule has its own request-rate quota (1,000/s in
 * the large regions, 250/s elsewhere), so a burst of finishing jobs (1,000 timeouts in a few seconds)
 * gets `ThrottlingException` once the SDK's three attempts (and its retry token bucket) are spent.
 *
 * `runEffects` awaits the disarm before the publish, and `decideAndSave` lets its error out after the
 * decision's write: the decision is stored, but the caller is told it failed (a 5xx to the operator's
 * cancel, whose retry then answers 409 `job_finished`), and the outbox (here `JobTimedOut`) is not
 * published until the finished item's unarmed retry entry (30 s later, in the outbox shards) is found
 * by a sweep: 35–95 s late. A disarm is only an optimisation (a stale schedule is dropped by the lazy
 * check anyway), so its failure should not make a stored decision look failed.
 *
 * Real dynalite for the table; Scheduler and SQS through the real Timers adapter on mocked SDK clients.
 */
describe('a throttled DeleteSchedule after a stored decision (dynalite + mocked Scheduler/SQS)', () => {
  const m = useTestManager();
  const scheduler = mockClient(SchedulerClient);
  const sqs = mockClient(SQSClient);
  afterAll(() => {
    scheduler.restore();
    sqs.restore();
  });
  const sent: TimerRequest[] = [];
  const throttled = () => new ThrottlingException({ $metadata: {}, message: 'Rate exceeded', Message: 'Rate exceeded' });

  beforeEach(() => {
    scheduler.reset();
    sqs.reset();
    sent.length = 0;
    sqs.on(SendMessageCommand).callsFake(({ MessageBody }: { MessageBody: string }) => {
      sent.push(parseTimerMessage(MessageBody));
      return { MessageId: `m-${sent.length}` };
    });
    scheduler.on(CreateScheduleCommand).resolves({ ScheduleArn: 'arn:aws:scheduler:eu-west-1:123456789012:schedule/vigil-timers/s' });
    scheduler.on(DeleteScheduleCommand).rejects(throttled());
    m.deps.timers = createSqsSchedulerTimers({
      sqs: new SQSClient({ region: 'eu-west-1' }),
      scheduler: new SchedulerClient({ region: 'eu-west-1' }),
      clock: m.clock,
      config: {
        timerQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/vigil-timers',
        timerQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-timers',
        scheduleGroupName: 'vigil-timers',
        schedulerRoleArn: 'arn:aws:iam::123456789012:role/vigil-scheduler',
        schedulerDlqArn: 'arn:aws:sqs:eu-west-1:123456789012:vigil-scheduler-dlq',
      },
    });
  });

  it('a timeout at the deadline is stored and its JobTimedOut goes out at once, though the schedule delete is throttled', async () => {
    // Prepare: a 60 s job (its only wake-up is an SQS message; it never had a schedule)
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const wakeUp = sent.at(-1);
    if (!wakeUp) throw new Error('no wake-up was sent');
    m.clock.set(wakeUp.dueAt);
    // Act: the queue delivers the wake-up at the deadline
    const fired = fireJobTimer(m.deps, wakeUp).then(
      () => 'resolved',
      (error: unknown) => `rejected: ${String(error)}`,
    );
    // Assess: the decision is stored either way …
    const outcome = await fired;
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    // … and neither the fire nor the event should depend on a Scheduler call that changes nothing.
    expect({ outcome, published: m.bus.ofType('JobTimedOut').length, outboxLeft: job.outbox?.length ?? 0 }).toEqual({
      outcome: 'resolved',
      published: 1,
      outboxLeft: 0,
    });
  });

  it("an operator's cancel that is stored is answered as done, not as a failure", async () => {
    // Prepare
    await submit(m, { jobId: 'job-2', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(5));
    // Act
    const outcome = await cancelJob(m.deps, 'job-2', 'operator').then(
      () => 'resolved',
      (error: unknown) => `rejected: ${String(error)}`,
    );
    // Assess: the job is CANCELLED; a caller told it failed retries and gets 409 job_finished
    expect((await m.getJob('job-2')).status).toBe('CANCELLED');
    expect(outcome).toBe('resolved');
  });

  /** The wake-up the job's last schedule carries, and when Scheduler delivers it (a few minutes ahead of it). */
  function lastSchedule(): { wakeUp: TimerRequest; firesAt: number } {
    const input = scheduler.commandCalls(CreateScheduleCommand).at(-1)?.args[0].input.Target?.Input;
    if (input === undefined) throw new Error('no schedule was created');
    const wakeUp = parseTimerMessage(input);
    return { wakeUp, firesAt: wakeUp.dueAt - SCHEDULE_LEAD_MS };
  }

  it('a job whose wake-ups were all within SQS range asks Scheduler nothing when it finishes; one with a schedule asks', async () => {
    // Prepare: a 60 s job with a 2-minute stuck threshold, and a 2-hour one with a 1-hour threshold
    await submit(m, { jobId: 'near', timeoutSeconds: 60, stuckThresholdSeconds: 120, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await submit(m, { jobId: 'far', timeoutSeconds: 7_200, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(5));
    // Act
    await cancelJob(m.deps, 'near', 'operator');
    const deletesForNear = scheduler.commandCalls(DeleteScheduleCommand).length;
    await cancelJob(m.deps, 'far', 'operator');
    // Assess: only the job that had a schedule asks for its delete (throttled here, and only counted)
    expect(deletesForNear).toBe(0);
    expect(scheduler.commandCalls(CreateScheduleCommand).map((call) => parseTimerMessage(call.args[0].input.Target?.Input ?? '').jobId)).toEqual(['far']);
    expect(scheduler.commandCalls(DeleteScheduleCommand)).toHaveLength(1);
    expect(m.telemetry.metrics.filter((metric) => metric.name === 'TimerDisarmFailed')).toEqual([{ name: 'TimerDisarmFailed', dimensions: { scope: 'job' } }]);
    expect(m.telemetry.logs.filter((log) => log.level === 'warn')).toMatchObject([{ message: expect.stringContaining('timer not withdrawn'), attributes: { scope: 'job', jobId: 'far' } }]);
  });

  it("the schedule a throttled delete left behind fires into a finished job: dropped as already_terminal, changing nothing", async () => {
    // Prepare: a 2-hour job (its wake-up, an hour out, is a schedule), cancelled; the delete is throttled
    await submit(m, { jobId: 'job-3', timeoutSeconds: 7_200, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(5));
    await cancelJob(m.deps, 'job-3', 'operator');
    const { wakeUp, firesAt } = lastSchedule();
    const [before, published, armed] = [await m.snapshot(), m.bus.published.length, sent.length];
    // Act: Scheduler delivers it an hour later
    m.clock.set(firesAt);
    await fireJobTimer(m.deps, wakeUp);
    // Assess
    expect(await m.snapshot()).toEqual(before);
    expect([m.bus.published.length, sent.length]).toEqual([published, armed]);
    expect(m.telemetry.metrics).toContainEqual({ name: 'WakeUpDropped', dimensions: { reason: 'already_terminal' } });
  });

  it("…and into a new job under the same id (the old one expired): dropped as superseded_timer, changing nothing", async () => {
    // Prepare: the old job's wake-up, 20 minutes out, is a schedule; cancelled, its delete throttled, its item expired
    await submit(m, { jobId: 'job-4', timeoutSeconds: 1_200, stuckThresholdSeconds: 1_200, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await cancelJob(m.deps, 'job-4', 'operator');
    const { wakeUp: stale, firesAt } = lastSchedule();
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-4', sk: 'JOB' } }));
    // … a new job with the id, kept alive by progress, its wake-ups SQS messages a stuck threshold apart
    m.clock.set(at(10));
    const fresh = await submit(m, { jobId: 'job-4', timeoutSeconds: 1_800, stuckThresholdSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(600));
    await reportProgress(m.deps, { jobId: 'job-4', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(fresh, 'wf-1'), progress: 0.5 });
    const own = sent.at(-1);
    if (!own) throw new Error('the new job armed no wake-up');
    m.clock.set(own.dueAt);
    await fireJobTimer(m.deps, own);
    const [before, published, armed] = [await m.snapshot(), m.bus.published.length, sent.length];
    // Act: the old job's schedule fires
    m.clock.set(firesAt);
    await fireJobTimer(m.deps, stale);
    // Assess
    expect((await m.getJob('job-4')).status).toBe('RUNNING');
    expect(await m.snapshot()).toEqual(before);
    expect([m.bus.published.length, sent.length]).toEqual([published, armed]);
    expect(m.telemetry.metrics).toContainEqual({ name: 'WakeUpDropped', dimensions: { reason: 'superseded_timer' } });
  });

  it('the outbox goes out while the delete is still waiting for an answer (here: an answer that comes only after it)', { timeout: 5_000 }, async () => {
    // Prepare: a job with a schedule; Scheduler answers the delete (throttled) only once an event is out
    await submit(m, { jobId: 'job-5', timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    let eventOut: () => void = () => undefined;
    const published = new Promise<void>((resolve) => (eventOut = resolve));
    const bus = m.deps.bus;
    m.deps.bus = { publish: async (events: readonly BusEvent[]) => void (await bus.publish(events), eventOut()) };
    const order: string[] = [];
    scheduler.on(DeleteScheduleCommand).callsFake(async () => {
      await published;
      order.push('delete answered');
      throw throttled();
    });
    const wakeUp = sent.at(-1);
    if (!wakeUp) throw new Error('no wake-up was sent');
    // Act: the timeout fires (were the publish to wait for the delete, neither would ever come)
    m.clock.set(wakeUp.dueAt);
    await fireJobTimer(m.deps, wakeUp).then(() => order.push('fire ended'));
    // Assess: the fire waited for the answer before it ended, not before it published
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
    expect(order).toEqual(['delete answered', 'fire ended']);
    expect((await m.getJob('job-5')).outbox ?? []).toEqual([]);
  });

  it("a pool item whose attempt ended answers its agent though its schedule's delete is throttled; the schedule changes nothing when it fires", async () => {
    // Prepare: an hour's agent deadline and checkpoints 50 minutes apart, so the attempt's wake-up is a schedule
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 });
    const held = await claim(m.deps, 'agent-a');
    const { wakeUp, firesAt } = lastSchedule();
    expect(wakeUp.jobId).toBe(itemTimerId('p', held.itemId));
    m.clock.set(at(30));
    // Act: the agent completes (the last item: the pool finishes too); later the schedule fires
    const answer = await send(m.deps, held, { type: 'complete', outcome: 'succeeded' });
    const [after, published] = [await m.snapshot(), m.bus.published.length];
    m.clock.set(firesAt);
    await firePoolTimer(m.deps, wakeUp);
    // Assess
    expect(answer).toMatchObject({ state: 'succeeded' });
    expect(await m.deps.pools.getItem('p', held.itemId)).not.toHaveProperty('outbox');
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
    expect(m.telemetry.metrics).toContainEqual({ name: 'TimerDisarmFailed', dimensions: { scope: 'pool' } });
    expect(await m.snapshot()).toEqual(after);
    expect(m.bus.published).toHaveLength(published);
  });
});
