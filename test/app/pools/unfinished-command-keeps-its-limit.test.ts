import { describe, expect, it } from 'vitest';
import { statusByCode } from '../../../shared/http/error-response.js';
import { ITEM_BOUNDS } from '../../../shared/domain/pools/pool-item.js';
import type { TimeoutPolicyName } from '../../../shared/domain/pools/pool-config.js';
import { toIso } from '../../../shared/domain/time.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send, type Claimed } from './pool-test-support.js';

const threeShellSteps = (policy: TimeoutPolicyName, extra: { agent_timeout_secs?: number } = {}) => ({
  ...extra,
  agent_template: [{ shell: 'a' }, { shell: 'b' }, { shell: 'c' }],
  timeout_config: { timeout_policy: policy, cleanup_grace_period_secs: 0 },
});

// Seed 003 schedules each command's timeout on its own (schedule_command_timeout_check) and cancels
// none when the next command starts: a command the agent never finished keeps its 60 s.
describe('a command still running when the next starts keeps its own limit (dynalite)', () => {
  const m = useTestManager();

  async function startAt(agent: Claimed, index: number, seconds: number) {
    m.clock.set(at(seconds));
    return send(m.deps, agent, { type: 'command_start', index, commandType: 'shell' });
  }
  const commandTimeouts = () => m.bus.ofType('TimeoutOccurred').map((event) => event.detail);

  it.each<TimeoutPolicyName>(['per_command', 'hybrid'])(
    '%s: commands 0, 1, 2 (shell, 60 s) started at 0, 55 and 110 s and never finished: command 0 times out at 60 s',
    async (policy) => {
      // Prepare
      await newPool(m.deps, threeShellSteps(policy, policy === 'hybrid' ? { agent_timeout_secs: 1_000 } : {}));
      const agent = await claim(m.deps, 'agent-a');
      // Act
      const answers = [await startAt(agent, 0, 0), await startAt(agent, 1, 55)];
      const third = await refusal(startAt(agent, 2, 110));
      // Assess: the attempt was timed out at command 0's deadline, so the third start came too late
      expect(answers).toEqual([{ deadlineAt: toIso(at(60)) }, { deadlineAt: toIso(at(115)) }]);
      expect(commandTimeouts()).toEqual([expect.objectContaining({ timeoutType: 'command', commandIndex: 0, limitSeconds: 60, elapsedSeconds: 60 })]);
      expect(third).toMatchObject({ code: 'stale_attempt' });
      expect((await m.deps.pools.getItem('p', 'i-1'))?.history[0]).toMatchObject({ outcome: 'timed_out', timeout: { commandIndex: 0 } });
    },
  );

  it('the wake-up is armed for the first running deadline: command 0 times out at 60 s with no agent call at all', async () => {
    // Prepare
    await newPool(m.deps, threeShellSteps('per_command'));
    const agent = await claim(m.deps, 'agent-a');
    await startAt(agent, 0, 0);
    await startAt(agent, 1, 55);
    // Act
    const item = await m.deps.pools.getItem('p', 'i-1');
    // Assess
    expect(item?.timerDueAt).toBe(at(60));
    expect(item?.run?.commands?.map((command) => command.index)).toEqual([0, 1]);
  });

  it('finishing the earlier command leaves the later one its own deadline: command 1 times out at 115 s, not before', async () => {
    // Prepare
    await newPool(m.deps, threeShellSteps('per_command'));
    const agent = await claim(m.deps, 'agent-a');
    await startAt(agent, 0, 0);
    await startAt(agent, 1, 55);
    // Act
    m.clock.set(at(58));
    await send(m.deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    m.clock.set(at(114));
    const before = await send(m.deps, agent, { type: 'heartbeat' });
    m.clock.set(at(115));
    const after = await send(m.deps, agent, { type: 'heartbeat' });
    // Assess
    expect(before).toMatchObject({ action: 'continue' });
    expect(after).toMatchObject({ action: 'terminate' });
    expect(commandTimeouts()).toEqual([expect.objectContaining({ commandIndex: 1, limitSeconds: 60, elapsedSeconds: 60 })]);
    expect(m.bus.ofType('CommandCompleted').map((event) => event.detail['commandIndex'])).toEqual([0]);
  });

  it("a repeat of an earlier command's start while it still runs answers its own deadline and moves nothing", async () => {
    // Prepare
    await newPool(m.deps, threeShellSteps('per_command'));
    const agent = await claim(m.deps, 'agent-a');
    await startAt(agent, 0, 0);
    await startAt(agent, 1, 30);
    // Act: its first answer was lost; the agent sends command 0's start again at 50 s
    const repeated = await startAt(agent, 0, 50);
    m.clock.set(at(60));
    const told = await send(m.deps, agent, { type: 'heartbeat' });
    // Assess
    expect(repeated).toEqual({ deadlineAt: toIso(at(60)) });
    expect(told).toMatchObject({ action: 'terminate' });
    expect(m.bus.ofType('CommandStarted')).toHaveLength(2);
  });

  it("a stale attempt's command calls are refused and change nothing: the running attempt's commands and deadlines stay", async () => {
    // Prepare: attempt 1 starts command 0 and gives the item back; attempt 2 starts command 0 at 10 s
    await newPool(m.deps, threeShellSteps('per_command'));
    const first = await claim(m.deps, 'agent-a');
    await startAt(first, 0, 0);
    await send(m.deps, first, { type: 'terminated', cleanup: 'completed' });
    m.clock.set(at(10));
    const second = await claim(m.deps, 'agent-b');
    await startAt(second, 0, 10);
    const before = await m.deps.pools.getItem('p', 'i-1');
    // Act: the old agent goes on starting and finishing commands
    m.clock.set(at(20));
    const refusals = [
      await refusal(send(m.deps, first, { type: 'command_start', index: 1, commandType: 'shell' })),
      await refusal(send(m.deps, first, { type: 'command_finish', index: 0, outcome: 'succeeded' })),
    ];
    // Assess
    const after = await m.deps.pools.getItem('p', 'i-1');
    expect(refusals).toEqual([expect.objectContaining({ code: 'stale_attempt' }), expect.objectContaining({ code: 'stale_attempt' })]);
    expect(after?.run).toEqual(before?.run);
    expect(after?.timerDueAt).toBe(at(70));
    expect(m.bus.ofType('CommandStarted').map((event) => event.detail['attempt'])).toEqual([1, 2]);
  });

  it(`a start while ${ITEM_BOUNDS.runningCommands} commands run is refused with 409 too_many_commands_running, naming how to go on`, async () => {
    // Prepare: commands past the template (120 s each), none finished
    await newPool(m.deps, { timeout_config: { timeout_policy: 'per_command' } });
    const agent = await claim(m.deps, 'agent-a');
    for (let index = 0; index < ITEM_BOUNDS.runningCommands; index++) await send(m.deps, agent, { type: 'command_start', index, commandType: 'tool' });
    // Act
    const refused = await refusal(send(m.deps, agent, { type: 'command_start', index: ITEM_BOUNDS.runningCommands, commandType: 'tool' }));
    await send(m.deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' });
    const afterFinish = await send(m.deps, agent, { type: 'command_start', index: ITEM_BOUNDS.runningCommands, commandType: 'tool' });
    // Assess
    expect(refused).toMatchObject({ code: 'too_many_commands_running', message: expect.stringContaining('finish one') });
    expect(statusByCode['too_many_commands_running']).toBe(409);
    expect(afterFinish).toEqual({ deadlineAt: toIso(at(120)) });
  });
});
