/**
 * Bench: agent fleets through the local cloud's HTTP API (bench child progress-cloud.ts, its own
 * process, as `npm start`).
 *   - Enforcement overhead (spec 113's "< 1 %"): the same pool of short items worked by AGENTS
 *     agents that claim, start/finish their command, heartbeat, checkpoint when asked and complete
 *     through Vigil, vs a plain loop doing the same work without it, in the same run: makespan ratio.
 *   - Timeout precision: TimeoutOccurred's decision time − the deadline the agent was given, for
 *     agent deadlines and command deadlines.
 */
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sdkAgentHeartbeatMs } from '../../shared/sdk/agent-heartbeat.js';
import { PoolClient, type Attempt } from '../support/pool-client.js';
import { VigilClient, ok } from '../support/vigil-client.js';
import { BenchChild } from './bench-child.js';
import { progressCloudReady } from './messages.js';
import { inParallel, summarize, type Summary } from './stats.js';
import { fmtMs, formatTable } from './table.js';

const ITEMS = 200;
const AGENTS = 8;
const WORK_MS = 500;
const SLICES = 2;
const PRECISION_ITEMS = 100;
/**
 * Seed 003's agents run minutes, with the SDK heartbeating beside the work at the cadence each claim
 * answers (`heartbeatIntervalSeconds`: 5 s for this pool's 15 s checkpoint timeout; its first checkpoint
 * request would open at 20 s, after the work): the realistic case
 * beside the short-item one. Items of 15 s keep the bench short; what Vigil adds per item is the claim,
 * command start/finish and complete (heartbeats and checkpoints overlap).
 */
const LONG_ITEMS = 16;
const LONG_WORK_MS = 15_000;
const LONG_CHECKPOINT_INTERVAL_SECS = 20;
const LONG_CHECKPOINT_TIMEOUT_SECS = 15;
/** What a claim of that pool answers, for the summary line; each agent beats at its own claim's answer. */
const LONG_HEARTBEAT_MS = (LONG_CHECKPOINT_TIMEOUT_SECS / 3) * 1_000;
const DEADLINE_SECONDS = 3;

export interface AgentFleetResult {
  plainMs: number;
  vigilMs: number;
  longPlainMs: number;
  longVigilMs: number;
  callsPerItem: number;
  agentLateMs: Summary;
  commandLateMs: Summary;
}

async function plainLoop(items = ITEMS, workMs = WORK_MS): Promise<number> {
  const started = Date.now();
  await inParallel(Array.from({ length: items }, (_, i) => i), AGENTS, async () => {
    for (let slice = 0; slice < SLICES; slice++) await sleep(workMs / SLICES);
  });
  return Date.now() - started;
}

/** Agents as the SDK runs them: the work, with heartbeats (and checkpoints when asked) beside it. */
async function throughVigilLong(pools: PoolClient, poolId: string): Promise<number> {
  await pools.createPool({
    poolId,
    items: Array.from({ length: LONG_ITEMS }, (_, i) => ({ itemId: `item-${i}`, input: { i } })),
    config: { agent_template: [{ shell: 'work' }], agent_timeout_secs: 120, checkpoint_interval_secs: LONG_CHECKPOINT_INTERVAL_SECS, checkpoint_timeout_secs: LONG_CHECKPOINT_TIMEOUT_SECS },
  });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, agent) => {
      for (;;) {
        const attempt = await pools.claim(poolId, `agent-${agent}`);
        if (!attempt) return;
        await pools.agent(attempt, 'commands/0/start', { type: 'shell' });
        const done = AbortSignal.timeout(LONG_WORK_MS);
        const beatMs = sdkAgentHeartbeatMs(attempt);
        const beside = (async () => {
          while (!done.aborted) {
            await sleep(beatMs, undefined, { signal: done }).catch(() => undefined);
            if (done.aborted) return;
            const { body } = await pools.heartbeat(attempt);
            if (body.action === 'checkpoint') await pools.agent(attempt, 'checkpoints', { state: { at: Date.now() } });
          }
        })();
        await sleep(LONG_WORK_MS);
        await beside;
        await pools.agent(attempt, 'commands/0/finish', { outcome: 'succeeded' });
        await pools.agent(attempt, 'complete', { outcome: 'succeeded', result: { ok: true } });
      }
    }),
  );
  return Date.now() - started;
}

async function throughVigil(pools: PoolClient, poolId: string, items = ITEMS): Promise<{ makespanMs: number; calls: number }> {
  await pools.createPool({
    poolId,
    items: Array.from({ length: items }, (_, i) => ({ itemId: `item-${i}`, input: { i } })),
    config: { agent_template: [{ shell: 'work' }], agent_timeout_secs: 60, checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.5, timeout_config: { timeout_policy: 'hybrid' } },
  });
  let calls = 0;
  const counted = async <T>(promise: Promise<T>): Promise<T> => {
    calls++;
    return promise;
  };
  const started = Date.now();
  await Promise.all(
    Array.from({ length: AGENTS }, async (_, agent) => {
      for (;;) {
        const attempt = await counted(pools.claim(poolId, `agent-${agent}`));
        if (!attempt) return;
        await counted(pools.agent(attempt, 'commands/0/start', { type: 'shell' }));
        for (let slice = 0; slice < SLICES; slice++) {
          await sleep(WORK_MS / SLICES);
          const { body } = await counted(pools.heartbeat(attempt));
          if (body.action === 'checkpoint') await counted(pools.agent(attempt, 'checkpoints', { state: { slice }, progress: (slice + 1) / SLICES }));
        }
        await counted(pools.agent(attempt, 'commands/0/finish', { outcome: 'succeeded' }));
        await counted(pools.agent(attempt, 'complete', { outcome: 'succeeded', result: { ok: true } }));
      }
    }),
  );
  return { makespanMs: Date.now() - started, calls };
}

/** Claims PRECISION_ITEMS attempts that never finish, and returns each attempt's due time by item. */
async function overrunningAttempts(pools: PoolClient, poolId: string, policy: 'per_agent' | 'per_command'): Promise<Map<string, number>> {
  const config =
    policy === 'per_agent'
      ? { agent_timeout_secs: DEADLINE_SECONDS, checkpoint_interval_secs: 600, timeout_config: { cleanup_grace_period_secs: 0 } }
      : { checkpoint_interval_secs: 600, timeout_config: { timeout_policy: 'per_command', cleanup_grace_period_secs: 0, command_timeouts: { shell: DEADLINE_SECONDS } } };
  await pools.createPool({ poolId, items: Array.from({ length: PRECISION_ITEMS }, (_, i) => ({ itemId: `item-${i}` })), config });
  const dueAt = new Map<string, number>();
  await inParallel(Array.from({ length: PRECISION_ITEMS }, (_, i) => i), AGENTS, async (i) => {
    const attempt: Attempt | undefined = await pools.claim(poolId, `agent-${i}`);
    if (!attempt) throw new Error(`nothing to claim in ${poolId}`);
    if (policy === 'per_agent') dueAt.set(attempt.itemId, Date.parse(attempt.deadlineAt ?? ''));
    else dueAt.set(attempt.itemId, Date.parse((await pools.agent<{ deadlineAt: string }>(attempt, 'commands/0/start', { type: 'shell' })).body.deadlineAt));
  });
  return dueAt;
}

async function lateness(client: VigilClient, poolId: string, dueAt: Map<string, number>): Promise<number[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { events } = ok(await client.events());
    const fired = events.filter((event) => event.detailType === 'TimeoutOccurred' && event.detail['poolId'] === poolId);
    const byItem = new Map(fired.map((event) => [String(event.detail['itemId']), Date.parse(String(event.detail['at']))]));
    if (byItem.size >= dueAt.size || Date.now() > deadline) return [...dueAt].flatMap(([itemId, due]) => (byItem.has(itemId) ? [(byItem.get(itemId) ?? 0) - due] : []));
    await sleep(200);
  }
}

export async function benchAgentFleets(root: string, children: BenchChild[]): Promise<AgentFleetResult> {
  const child = BenchChild.start('progress-cloud.ts', [join(root, 'fleets')], join(root, 'fleets-cloud.log'));
  children.push(child);
  try {
    const { regionUrl } = await child.receive(progressCloudReady, 60_000);
    const pools = new PoolClient(regionUrl);
    const client = new VigilClient(regionUrl);
    await throughVigil(pools, 'warm-up', 3 * AGENTS);
    const plainMs = await plainLoop();
    const vigil = await throughVigil(pools, 'overhead');
    const longPlainMs = await plainLoop(LONG_ITEMS, LONG_WORK_MS);
    const longVigilMs = await throughVigilLong(pools, 'overhead-long');
    const agentDue = await overrunningAttempts(pools, 'precision-agent', 'per_agent');
    const commandDue = await overrunningAttempts(pools, 'precision-command', 'per_command');
    return {
      plainMs,
      vigilMs: vigil.makespanMs,
      longPlainMs,
      longVigilMs,
      callsPerItem: vigil.calls / ITEMS,
      agentLateMs: summarize(await lateness(client, 'precision-agent', agentDue)),
      commandLateMs: summarize(await lateness(client, 'precision-command', commandDue)),
    };
  } finally {
    await child.stop();
  }
}

export function formatAgentFleets(result: AgentFleetResult, jobTimers: Summary): string {
  const ratio = result.vigilMs / result.plainMs;
  const perItemMs = ((result.vigilMs - result.plainMs) * AGENTS) / ITEMS;
  const longPerItemMs = ((result.longVigilMs - result.longPlainMs) * AGENTS) / LONG_ITEMS;
  const row = (name: string, s: Summary) => [name, String(s.count), fmtMs(s.p50), fmtMs(s.p99), fmtMs(s.max)];
  return [
    `   ${ITEMS} items of ${WORK_MS} ms work, ${AGENTS} agents: plain loop ${(result.plainMs / 1_000).toFixed(2)} s, through Vigil ` +
      `${(result.vigilMs / 1_000).toFixed(2)} s → makespan ratio ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} % overhead; ` +
      `${Math.round(perItemMs)} ms per item for ${result.callsPerItem.toFixed(1)} HTTP calls: claim, command start/finish, heartbeats, checkpoints, complete).`,
    `   At 2 s of work per item the same per-item cost would be ${((perItemMs / 2_000) * 100).toFixed(1)} % (load average now ${loadavg().map((n) => n.toFixed(1)).join(' ')}).`,
    `   ${LONG_ITEMS} items of ${LONG_WORK_MS / 1_000} s work, heartbeats every ${LONG_HEARTBEAT_MS / 1_000} s beside it (as the SDK runs agents): plain loop ` +
      `${(result.longPlainMs / 1_000).toFixed(2)} s, through Vigil ${(result.longVigilMs / 1_000).toFixed(2)} s → ` +
      `${(((result.longVigilMs - result.longPlainMs) / result.longPlainMs) * 100).toFixed(2)} % overhead; ` +
      `${Math.round(longPerItemMs)} ms per item, which is ${((longPerItemMs / 300_000) * 100).toFixed(2)} % of a 300 s item (spec 113's claude default).`,
    formatTable(
      ['timeout precision (decided − due)', 'timeouts', 'p50', 'p99', 'max'],
      [
        row(`agent deadlines (${DEADLINE_SECONDS} s, ${PRECISION_ITEMS} attempts)`, result.agentLateMs),
        row(`command deadlines (${DEADLINE_SECONDS} s, ${PRECISION_ITEMS} attempts)`, result.commandLateMs),
        row('job timers, section 1 (wake-up starts the handler)', jobTimers),
      ],
    ),
  ].join('\n');
}
