import { GetScheduleCommand, ListSchedulesCommand, type GetScheduleCommandOutput } from '@aws-sdk/client-scheduler';
import { expect, it } from 'vitest';
import { SCHEDULE_NAME_PATTERN, scheduleNameFor } from '../../shared/adapters/aws/schedule-name.js';
import { parseTimerMessage } from '../../shared/adapters/aws/timer-message.js';
import type { TimerRef, TimerRequest } from '../../shared/ports/timers.js';
import { queueDepth, required } from '../support/aws-test-resources.js';
import { describeWithEmulator } from '../support/emulator.js';
import { timerFixture, type TimerFixture } from './timer-test-setup.js';

const NOW = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const MINUTE = 60_000;

describeWithEmulator('timers due after 15 minutes are one-time EventBridge Scheduler schedules', (emulator) => {
  const getSchedule = (fixture: TimerFixture, timer: TimerRef): Promise<GetScheduleCommandOutput> =>
    fixture.scheduler.send(
      new GetScheduleCommand({
        Name: scheduleNameFor(timer),
        GroupName: fixture.config.scheduleGroupName,
      }),
    );

  it('arming creates a schedule 3 minutes early that sends the timer to the timer queue', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    const timer: TimerRequest = { scope: 'job', jobId: 'job-far', fenceToken: 2, dueAt: NOW + 60 * MINUTE + 500 };

    // Act
    await fixture.timers.arm(timer);

    // Assess
    const schedule = await getSchedule(fixture, timer);
    expect(schedule).toMatchObject({
      Name: scheduleNameFor(timer),
      GroupName: fixture.config.scheduleGroupName,
      ScheduleExpression: 'at(2031-01-15T10:57:00)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: fixture.queue.arn,
        RoleArn: fixture.config.schedulerRoleArn,
        DeadLetterConfig: { Arn: fixture.config.schedulerDlqArn },
      },
    });
    expect(parseTimerMessage(required(schedule.Target?.Input, 'schedule has no Input'))).toEqual(timer);
    expect(await queueDepth(fixture.sqs, fixture.queue.url)).toEqual({ visible: 0, delayed: 0 });
  });

  it('15 minutes and 1 ms ahead is already a schedule', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    const timer: TimerRequest = { scope: 'job', jobId: 'job-boundary', fenceToken: 0, dueAt: NOW + 15 * MINUTE + 1 };

    // Act
    await fixture.timers.arm(timer);

    // Assess
    expect((await getSchedule(fixture, timer)).ScheduleExpression).toBe('at(2031-01-15T10:12:00)');
    expect(await queueDepth(fixture.sqs, fixture.queue.url)).toEqual({ visible: 0, delayed: 0 });
  });

  it('re-arming the same job at the same fence token replaces its schedule instead of adding one', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    await fixture.timers.arm({ scope: 'job', jobId: 'job-rearm', fenceToken: 2, dueAt: NOW + 30 * MINUTE });
    const later: TimerRequest = { scope: 'job', jobId: 'job-rearm', fenceToken: 2, dueAt: NOW + 2 * 60 * MINUTE };

    // Act
    await fixture.timers.arm(later);

    // Assess
    const schedule = await getSchedule(fixture, later);
    expect(schedule.ScheduleExpression).toBe('at(2031-01-15T11:57:00)');
    expect(schedule.ActionAfterCompletion).toBe('DELETE');
    expect(parseTimerMessage(required(schedule.Target?.Input, 'schedule has no Input'))).toEqual(later);
    const listed = await fixture.scheduler.send(new ListSchedulesCommand({ GroupName: fixture.config.scheduleGroupName }));
    expect(listed.Schedules?.map((s) => s.Name)).toEqual([scheduleNameFor(later)]);
  });

  it("an older fence token's arm, landing last, leaves the newer token's schedule as it was", async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    const current: TimerRequest = { scope: 'job', jobId: 'job-fenced', fenceToken: 2, dueAt: NOW + 30 * MINUTE };
    await fixture.timers.arm(current);

    // Act: the old leader's arm
    await fixture.timers.arm({ scope: 'job', jobId: 'job-fenced', fenceToken: 1, dueAt: NOW + 2 * 60 * MINUTE });

    // Assess
    expect(parseTimerMessage(required((await getSchedule(fixture, current)).Target?.Input, 'schedule has no Input'))).toEqual(current);
  });

  it('a job and the gate view of the same job have separate schedules', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);

    // Act
    await fixture.timers.arm({ scope: 'job', jobId: 'job-both', fenceToken: 1, dueAt: NOW + 20 * MINUTE });
    await fixture.timers.arm({ scope: 'gate', jobId: 'job-both', fenceToken: 1, dueAt: NOW + 40 * MINUTE });

    // Assess
    expect((await getSchedule(fixture, { scope: 'job', jobId: 'job-both', fenceToken: 1 })).ScheduleExpression).toBe('at(2031-01-15T10:17:00)');
    expect((await getSchedule(fixture, { scope: 'gate', jobId: 'job-both', fenceToken: 1 })).ScheduleExpression).toBe('at(2031-01-15T10:37:00)');
  });

  it('disarming deletes the schedule', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    const timer: TimerRequest = { scope: 'gate', jobId: 'job-disarm', fenceToken: 1, dueAt: NOW + 45 * MINUTE };
    await fixture.timers.arm(timer);

    // Act
    await fixture.timers.disarm(timer);

    // Assess
    await expect(getSchedule(fixture, timer)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  it('disarming a job that has no schedule is not an error', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);

    // Act + Assess
    await expect(fixture.timers.disarm({ scope: 'job', jobId: 'never-armed', fenceToken: 1 })).resolves.toBeUndefined();
  });

  it('a 128-character job id with colons gets a valid schedule name of its own', async () => {
    // Prepare
    const fixture = await timerFixture(emulator.clientConfig(), NOW);
    const longId = `tenant:eu-west.1_a:${'x'.repeat(109)}`;
    const sibling = `${longId.slice(0, -1)}y`;
    expect(longId).toHaveLength(128);

    // Act
    await fixture.timers.arm({ scope: 'job', jobId: longId, fenceToken: 1, dueAt: NOW + 20 * MINUTE });
    await fixture.timers.arm({ scope: 'job', jobId: sibling, fenceToken: 1, dueAt: NOW + 25 * MINUTE });

    // Assess
    const named = (scope: TimerRef['scope'], jobId: string, fenceToken = 1) => scheduleNameFor({ scope, jobId, fenceToken });
    for (const name of [named('job', longId), named('gate', longId), named('pool', longId, Number.MAX_SAFE_INTEGER)]) {
      expect(name).toMatch(SCHEDULE_NAME_PATTERN);
    }
    expect(named('job', longId)).toBe(named('job', longId));
    const listed = await fixture.scheduler.send(new ListSchedulesCommand({ GroupName: fixture.config.scheduleGroupName }));
    expect(listed.Schedules?.map((s) => s.Name).sort()).toEqual([named('job', longId), named('job', sibling)].sort());
    const schedule = await getSchedule(fixture, { scope: 'job', jobId: longId, fenceToken: 1 });
    expect(parseTimerMessage(required(schedule.Target?.Input, 'schedule has no Input')).jobId).toBe(longId);
  });
});
