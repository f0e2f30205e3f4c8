import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision, Effect } from '../../../../shared/domain/effects.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../../shared/domain/job-timer.js';
import { onItemWakeUp } from '../../../../shared/domain/pools/advance-attempt.js';
import { decideAgentCall, type AgentCall } from '../../../../shared/domain/pools/agent-calls.js';
import { claimItem } from '../../../../shared/domain/pools/claim-item.js';
import { withFollowUpsDone } from '../../../../shared/domain/pools/item-answers.js';
import { itemWakeUpLeadBoundMs } from '../../../../shared/domain/pools/item-wake-up.js';
import { TIMEOUT_ACTIONS, TIMEOUT_POLICIES } from '../../../../shared/domain/pools/pool-config.js';
import { itemTimerId, type PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import type { Pool } from '../../../../shared/domain/pools/pool.js';
import { at, call, claimed, freshItem, poolWith, T0 } from './pool-fixtures.js';

/**
 * A pool item's withdrawal says how far ahead any of its wake-ups can have been armed
 * (`DisarmTimer.armedAtMostMsAhead`), and the AWS adapter skips DeleteSchedule for an item whose
 * wake-ups were all within SQS's 15 minutes. That is only sound if no decision on any of the item's
 * attempts arms a wake-up further ahead than `itemWakeUpLeadBoundMs` (less the clock allowance, as
 * here every moment is on one clock): checked on every decision of random lives of an item.
 */
const disarmsOf = (effects: readonly Effect[]) => effects.flatMap((effect) => (effect.type === 'DisarmTimer' ? [effect] : []));
const leadsOf = (effects: readonly Effect[], now: number) => effects.flatMap((effect) => (effect.type === 'ArmTimer' ? [effect.timer.dueAt - now] : []));

type Op = { afterMs: number } & (
  | { kind: 'claim' }
  | { kind: 'call'; call: AgentCall }
  /** The item's wake-up delivered now: early (a schedule lands minutes ahead), on time or late. */
  | { kind: 'wake' }
  | { kind: 'follow_ups_done' }
  /** The pool is cancelled (its attempts are told to stop), and the item woken. */
  | { kind: 'stop_pool' }
);

const agentCall: fc.Arbitrary<AgentCall> = fc.oneof(
  fc.constant({ type: 'heartbeat' as const }),
  fc.record({ type: fc.constant('command_start' as const), index: fc.integer({ min: 0, max: 2 }), commandType: fc.constantFrom('shell', 'claude') }),
  fc.record({ type: fc.constant('command_finish' as const), index: fc.integer({ min: 0, max: 2 }), outcome: fc.constantFrom('succeeded' as const, 'failed' as const) }),
  fc.record({ type: fc.constant('checkpoint' as const), state: fc.nat() }),
  fc.record({ type: fc.constant('complete' as const), outcome: fc.constantFrom('succeeded' as const, 'failed' as const) }),
  fc.record({ type: fc.constant('terminated' as const), cleanup: fc.constantFrom('completed' as const, 'failed' as const) }),
);

const afterMs = fc.integer({ min: 0, max: 3 * 3_600_000 });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ afterMs, kind: fc.constant('claim' as const) }),
  fc.record({ afterMs, kind: fc.constant('call' as const), call: agentCall }),
  fc.record({ afterMs, kind: fc.constant('wake' as const) }),
  fc.record({ afterMs, kind: fc.constant('follow_ups_done' as const) }),
  fc.record({ afterMs, kind: fc.constant('stop_pool' as const) }),
);

/** Often under a minute, so each of the bound's terms (the 30 s follow-up retry too) is at times the longest. */
const seconds = (min: number, max: number) => fc.oneof(fc.integer({ min, max: 60 }), fc.integer({ min, max }));
const poolConfig = fc.record({
  agentSeconds: fc.option(seconds(1, 14_400), { nil: undefined }),
  commandSeconds: seconds(1, 14_400),
  intervalSeconds: seconds(1, 7_200),
  checkpointTimeoutSeconds: seconds(1, 3_600),
  graceSeconds: seconds(0, 7_200),
  stallThreshold: fc.integer({ min: 1, max: 4 }),
  policy: fc.constantFrom(...TIMEOUT_POLICIES),
  action: fc.constantFrom(...TIMEOUT_ACTIONS),
});

function decide(item: PoolItem, pool: Pool, step: Op, now: number): Decision<PoolItem> {
  switch (step.kind) {
    case 'claim':
      return claimItem(item, pool, { agentId: `agent-${item.attempt + 1}`, kind: 'agent' }, now);
    case 'call':
      return decideAgentCall(item, pool, item.attempt, step.call, now);
    case 'follow_ups_done':
      return withFollowUpsDone(item, item.pending?.length ?? 0, pool.config, now);
    case 'wake':
    case 'stop_pool':
      return onItemWakeUp(item, pool, now);
  }
}

describe('no decision arms a pool item wake-up further ahead than itemWakeUpLeadBoundMs', () => {
  it('claims, agent calls, wake-ups early or late, follow-ups done and the pool stopped, over several attempts', () => {
    fc.assert(
      fc.property(poolConfig, fc.array(op, { minLength: 1, maxLength: 30 }), (c, ops) => {
        // Prepare
        const running = poolWith({
          ...(c.agentSeconds !== undefined ? { agent_timeout_secs: c.agentSeconds } : {}),
          agent_template: [{ shell: 'a' }, { claude: 'b' }],
          checkpoint_interval_secs: c.intervalSeconds,
          checkpoint_timeout_secs: c.checkpointTimeoutSeconds,
          stall_threshold: c.stallThreshold,
          timeout_escalation: 100,
          timeout_config: { timeout_policy: c.policy, timeout_action: c.action, cleanup_grace_period_secs: c.graceSeconds, command_timeouts: { shell: c.commandSeconds } },
        });
        const bound = itemWakeUpLeadBoundMs(running.config);
        let pool: Pool = running;
        let item: PoolItem = freshItem();
        let now = T0;
        // Act + Assess, on every decision
        for (const step of ops) {
          now += step.afterMs;
          if (step.kind === 'stop_pool') pool = { ...pool, status: 'CANCELLED', finishedAt: pool.finishedAt ?? now };
          const decision = decide(item, pool, step, now);
          for (const lead of leadsOf(decision.effects, now)) expect(lead).toBeLessThanOrEqual(bound - CLOCK_SKEW_ALLOWANCE_MS);
          for (const disarm of disarmsOf(decision.effects)) expect(disarm.armedAtMostMsAhead).toBe(bound);
          item = decision.state;
        }
      }),
      { numRuns: 1_000 },
    );
  });
});

/** The attempt completes at `atSeconds`; its follow-ups (the pool's finish check) done a second later, the item has nothing left to wake up for. */
function completedAndSettled(item: PoolItem, pool: Pool, atSeconds: number) {
  const completed = call(item, pool, atSeconds, { type: 'complete', outcome: 'succeeded' }).state;
  return withFollowUpsDone(completed, completed.pending?.length ?? 0, pool.config, at(atSeconds + 1));
}

describe("a pool item's withdrawal says how far ahead its wake-ups were armed", () => {
  it("with seed 002's defaults: the 5-minute checkpoint interval, plus the allowance (within 15 minutes)", () => {
    // Prepare
    const pool = poolWith();
    const item = claimed(pool);
    // Act
    const { effects } = completedAndSettled(item, pool, 60);
    // Assess
    expect(disarmsOf(effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: 1 }, armedAtMostMsAhead: 300_000 + CLOCK_SKEW_ALLOWANCE_MS }]);
  });

  it('the longest of checkpoint interval, checkpoint timeout, grace period and follow-up retry counts', () => {
    // Prepare: a grace period longer than the checkpoint interval
    const pool = poolWith({ checkpoint_interval_secs: 60, checkpoint_timeout_secs: 20, timeout_config: { cleanup_grace_period_secs: 600 } });
    // Act
    const { effects } = completedAndSettled(claimed(pool), pool, 30);
    // Assess
    expect(disarmsOf(effects)).toMatchObject([{ armedAtMostMsAhead: 600_000 + CLOCK_SKEW_ALLOWANCE_MS }]);
  });

  it('checkpoints 50 minutes apart: an attempt whose later wake-ups were all short (a 1-minute command) still says 50 minutes, so its first schedule is deleted', () => {
    // Prepare: the claim's wake-up, at the first checkpoint request, is 50 minutes out; a command then wakes it within a minute
    const pool = poolWith({ agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_000, timeout_config: { timeout_policy: 'hybrid', command_timeouts: { shell: 60 } } });
    const item = claimed(pool);
    expect(item.timerDueAt).toBe(at(3_000));
    const started = call(item, pool, 10, { type: 'command_start', index: 0, commandType: 'shell' }).state;
    expect(started.timerDueAt).toBe(at(70));
    // Act
    const { effects } = completedAndSettled(started, pool, 20);
    // Assess
    expect(disarmsOf(effects)).toMatchObject([{ armedAtMostMsAhead: 3_000_000 + CLOCK_SKEW_ALLOWANCE_MS }]);
  });
});
