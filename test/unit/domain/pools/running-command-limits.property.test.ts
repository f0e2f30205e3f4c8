import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DETECTION_BOUND_MS } from '../../../../shared/app/detection-bound.js';
import { onItemWakeUp } from '../../../../shared/domain/pools/advance-attempt.js';
import { decideAgentCall, type AgentCall } from '../../../../shared/domain/pools/agent-calls.js';
import { commandLimitSeconds, templateCommands, type TimeoutPolicyName } from '../../../../shared/domain/pools/pool-config.js';
import type { PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import { claimed, poolWith, T0 } from './pool-fixtures.js';

type Op = { afterMs: number } & ({ kind: 'start'; skip: number } | { kind: 'restart'; pick: number } | { kind: 'finish'; pick: number } | { kind: 'heartbeat' });

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ afterMs: fc.integer({ min: 0, max: 40_000 }), kind: fc.constant('start' as const), skip: fc.integer({ min: 0, max: 1 }) }),
  fc.record({ afterMs: fc.integer({ min: 0, max: 40_000 }), kind: fc.constant('restart' as const), pick: fc.nat() }),
  fc.record({ afterMs: fc.integer({ min: 0, max: 40_000 }), kind: fc.constant('finish' as const), pick: fc.nat() }),
  fc.record({ afterMs: fc.integer({ min: 0, max: 40_000 }), kind: fc.constant('heartbeat' as const) }),
);

const scenario = fc.record({
  policy: fc.constantFrom<TimeoutPolicyName>('per_command', 'hybrid'),
  agentLimitSeconds: fc.option(fc.integer({ min: 30, max: 400 }), { nil: undefined }),
  shellSeconds: fc.integer({ min: 5, max: 90 }),
  claudeSeconds: fc.integer({ min: 5, max: 90 }),
  graceSeconds: fc.integer({ min: 0, max: 30 }),
  ops: fc.array(op, { minLength: 1, maxLength: 30 }),
  /** How late each wake-up is delivered: within the stated detection bound (a lost one is the sweep's). */
  wakeUpLateMs: fc.integer({ min: 0, max: DETECTION_BOUND_MS }),
});

describe('no running command outlives its limit (per_command, hybrid)', () => {
  it('for any interleaving of command starts, repeats and finishes, the attempt is timed out at the first deadline of a command left running (or the agent deadline), and stopped within the detection bound of it', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        // Prepare: four template steps, no checkpoint due within the run
        const pool = poolWith({
          ...(s.agentLimitSeconds !== undefined ? { agent_timeout_secs: s.agentLimitSeconds } : {}),
          agent_template: [{ shell: 'a' }, { claude: 'b' }, { shell: 'c' }, { claude: 'd' }],
          checkpoint_interval_secs: 100_000,
          timeout_config: { timeout_policy: s.policy, cleanup_grace_period_secs: s.graceSeconds, command_timeouts: { shell: s.shellSeconds, claude: s.claudeSeconds } },
        });
        let item: PoolItem = claimed(pool);
        const attempt = item.attempt;
        const agentDeadline = item.run?.agentDeadlineAt ?? undefined;
        const agentLimit = item.run?.agentLimitSeconds;
        /** The oracle's own record: when each accepted command started and finished. */
        const commands = new Map<number, { startedAt: number; deadline: number; finishedAt?: number }>();
        let next = 0;
        let stoppedSeenAt: number | undefined;
        const seeStop = (now: number) => {
          if (stoppedSeenAt === undefined && (!item.run || item.run.terminating)) stoppedSeenAt = now;
        };
        // Wake-ups come when armed (timerDueAt), each delivered late by up to the bound.
        const deliverWakeUpsUntil = (now: number) => {
          for (let guard = 0; guard < 10 && item.timerDueAt !== undefined && item.timerDueAt + s.wakeUpLateMs <= now; guard++) {
            const firedAt = item.timerDueAt + s.wakeUpLateMs;
            item = onItemWakeUp(item, pool, firedAt).state;
            seeStop(firedAt);
          }
        };
        const running = () => [...commands.entries()].filter(([, c]) => c.finishedAt === undefined).map(([index]) => index);
        const send = (call: AgentCall, now: number) => {
          const decided = decideAgentCall(item, pool, attempt, call, now);
          item = decided.state;
          seeStop(now);
          return decided.refusal === undefined;
        };
        // Act
        let now = T0;
        for (const step of s.ops) {
          now += step.afterMs;
          deliverWakeUpsUntil(now);
          if (step.kind === 'heartbeat') send({ type: 'heartbeat' }, now);
          if (step.kind === 'start') {
            const index = next + step.skip;
            if (send({ type: 'command_start', index, commandType: 'shell' }, now)) {
              const type = templateCommands(pool.config)[index]?.type ?? 'shell';
              commands.set(index, { startedAt: now, deadline: now + commandLimitSeconds(pool.config, type, index) * 1_000 });
              next = index + 1;
            }
          }
          const earlier = running();
          const picked = step.kind === 'restart' || step.kind === 'finish' ? earlier[step.pick % Math.max(1, earlier.length)] : undefined;
          if (step.kind === 'restart' && picked !== undefined) send({ type: 'command_start', index: picked, commandType: 'shell' }, now);
          if (step.kind === 'finish' && picked !== undefined && send({ type: 'command_finish', index: picked, outcome: 'succeeded' }, now)) {
            const finished = commands.get(picked);
            if (finished) finished.finishedAt = now;
          }
        }
        deliverWakeUpsUntil(now + 1_000_000);
        // Assess: the oracle's end is the first deadline of a command not finished before it, or the agent deadline
        const overrun = [...commands.entries()]
          .filter(([, c]) => c.finishedAt === undefined || c.finishedAt >= c.deadline)
          .sort(([ia, a], [ib, b]) => a.deadline - b.deadline || ia - ib);
        const firstOverrun = overrun[0];
        const endsAt = Math.min(firstOverrun?.[1].deadline ?? Infinity, agentDeadline ?? Infinity);
        const timeout = item.history.find((entry) => entry.attempt === attempt)?.timeout;
        if (endsAt === Infinity) {
          expect(timeout).toBeUndefined();
          expect(stoppedSeenAt).toBeUndefined();
          return;
        }
        const byAgent = agentDeadline !== undefined && agentDeadline <= endsAt;
        expect(timeout).toEqual(
          byAgent
            ? expect.objectContaining({ type: 'agent', elapsedSeconds: agentLimit })
            : expect.objectContaining({ type: 'command', commandIndex: firstOverrun?.[0], elapsedSeconds: timeout?.limitSeconds }),
        );
        expect(stoppedSeenAt).toBeDefined();
        expect(stoppedSeenAt ?? Infinity).toBeLessThanOrEqual(endsAt + DETECTION_BOUND_MS);
      }),
      { numRuns: 300 },
    );
  });
});
