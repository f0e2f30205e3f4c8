/**
 * The agent runner's numbers, each beside a same-run baseline:
 *   - its own overhead per item (claim + command start/finish + heartbeats + complete) next to a
 *     bare `sh -c` of the same command;
 *   - the time from `terminateBy` to the death of a child that ignores SIGTERM (p99).
 * One region of the local cloud in this process; the runner modules that `vigil run` uses.
 */
process.env['POWERTOOLS_LOG_LEVEL'] ??= 'SILENT';
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarize } from './stats.js';
import { fmtMs, formatTable } from './table.js';

const ITEMS = 40;
const KILL_SAMPLES = 10;
const KILL_RUNNERS = 2;
const COMMAND = 'true';

function bareShell(): Promise<number> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', COMMAND], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve(performance.now() - startedAt));
  });
}

export async function benchRunner(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'vigil-bench-runner-'));
  const { startLocalCloud } = await import('../../shared/local/local-cloud.js');
  const { claim } = await import('../../shared/sdk/agent.js');
  const { runPoolItem } = await import('../../shared/runner/run-pool-item.js');
  const { withChildFiles } = await import('../../shared/runner/child-files.js');
  const cloud = await startLocalCloud({ port: 0, regions: ['us-east-1'], dataDir: root, gateFallbackSeconds: 300, stuckThresholdSeconds: 120, gateStuckThresholdSeconds: 180 });
  const endpoint = cloud.endpoints.regions['us-east-1'] ?? '';
  const post = (path: string, body: unknown) => fetch(`${endpoint}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  try {
    // Overhead: the same command run by the runner, and bare, interleaved so load hits both alike.
    await post('/pools', { poolId: 'overhead', items: Array.from({ length: ITEMS }, (_, i) => ({ itemId: `i-${i}` })), config: { agent_template: [{ shell: COMMAND }] } });
    const viaRunner: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < ITEMS; i++) {
      const startedAt = performance.now();
      const attempt = await claim({ endpoint, heartbeatIntervalMs: 1_000 }, 'overhead', 'bench');
      if (!attempt) throw new Error('nothing to claim');
      const outcome = await withChildFiles((files) => runPoolItem(attempt, [{ index: 0, type: 'shell', argv: ['sh', '-c', COMMAND], limitSeconds: 60, reported: true }], files, { endpoint, graceSeconds: 30, log: () => undefined }));
      if (outcome !== 'succeeded') throw new Error(`item ${i}: ${outcome}`);
      viaRunner.push(performance.now() - startedAt);
      bare.push(await bareShell());
    }

    console.error(`overhead phase done: ${ITEMS} items`);
    // terminateBy → death: children that ignore SIGTERM, killed at the grace period's end.
    await post('/pools', {
      poolId: 'kill',
      items: Array.from({ length: KILL_SAMPLES }, (_, i) => ({ itemId: `k-${i}` })),
      config: { agent_timeout_secs: 1, timeout_config: { timeout_action: 'skip', cleanup_grace_period_secs: 1 } },
    });
    const lateness: number[] = [];
    const runner = async () => {
      for (;;) {
        const attempt = await claim({ endpoint, heartbeatIntervalMs: 250 }, 'kill', 'bench');
        if (!attempt) return;
        let goneAt = Number.NaN;
        await withChildFiles((files) =>
          runPoolItem(attempt, [{ index: 0, type: 'shell', argv: ['sh', '-c', "trap '' TERM; while :; do sleep 0.05; done"], limitSeconds: undefined, reported: false }], files, {
            endpoint,
            graceSeconds: 1,
            log: (line) => {
              if (line.includes('gone')) goneAt = Date.now();
            },
          }),
        );
        if (attempt.terminateByMs !== undefined) lateness.push(goneAt - attempt.terminateByMs);
      }
    };
    await Promise.all(Array.from({ length: KILL_RUNNERS }, runner));

    const overhead = summarize(viaRunner.map((ms, i) => ms - (bare[i] ?? 0)));
    const runnerStats = summarize(viaRunner);
    const bareStats = summarize(bare);
    const kill = summarize(lateness);
    return [
      formatTable(
        ['per item', 'p50', 'p99', 'max'],
        [
          [`runner: claim + start/finish + complete (${ITEMS} items)`, fmtMs(runnerStats.p50), fmtMs(runnerStats.p99), fmtMs(runnerStats.max)],
          [`bare sh -c '${COMMAND}' (baseline)`, fmtMs(bareStats.p50), fmtMs(bareStats.p99), fmtMs(bareStats.max)],
          ['runner overhead (difference, same item)', fmtMs(overhead.p50), fmtMs(overhead.p99), fmtMs(overhead.max)],
        ],
      ),
      '',
      formatTable(
        ['SIGTERM-ignoring child', 'samples', 'p50', 'p99', 'max'],
        [['terminateBy → group gone', String(kill.count), fmtMs(kill.p50), fmtMs(kill.p99), fmtMs(kill.max)]],
      ),
    ].join('\n');
  } finally {
    await cloud.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const watchdog = setTimeout(() => {
    console.error('runner bench: still running after 180 s; stopping');
    process.exit(1);
  }, 180_000);
  watchdog.unref();
  console.log(await benchRunner());
  process.exit(0);
}
