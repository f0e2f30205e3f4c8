/** `npm run bench:fleets`: section 5 of `npm run bench` (agent fleets) alone, for working on pools. */
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchAgentFleets, formatAgentFleets } from './agent-fleets.js';
import { benchClaimCost } from './claim-cost.js';
import type { BenchChild } from './bench-child.js';
import { summarize } from './stats.js';

const root = mkdtempSync(join(tmpdir(), 'vigil-bench-fleets-'));
const children: BenchChild[] = [];
const watchdog = setTimeout(() => process.exit(1), 300_000);
watchdog.unref();
try {
  const claimCost = process.argv.includes('--claims-only') ? '' : undefined;
  const fleets = claimCost === undefined ? await benchAgentFleets(root, children) : undefined;
  console.log(`5. Agent fleets\n${fleets ? `${formatAgentFleets(fleets, summarize([]))}\n` : ''}${await benchClaimCost()}`);
} finally {
  for (const child of children) await child.stop();
  clearTimeout(watchdog);
  rmSync(root, { recursive: true, force: true });
}
