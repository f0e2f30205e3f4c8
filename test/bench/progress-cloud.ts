/**
 * Bench child: the local cloud as `npm start` runs it (one region, HTTP listeners, logs at INFO to
 * this child's log file), with a counter on the region's DynamoDB client (dynamo-counter.ts). The
 * parent reads the counters and this process's CPU time with `{ type: 'counts' }`. argv: data dir.
 */
import { NPM_START_THRESHOLDS, toParent } from './bench-child.js';
import { countDynamoRequests } from './dynamo-counter.js';
import { parentMessage } from './messages.js';

const REGION = 'us-east-1';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: progress-cloud.ts <data dir>');
  process.env['POWERTOOLS_LOG_LEVEL'] ??= 'INFO';
  const { startLocalCloud } = await import('../../shared/local/local-cloud.js');
  const cloud = await startLocalCloud({ port: 0, regions: [REGION], dataDir, ...NPM_START_THRESHOLDS });
  const region = cloud.regions.get(REGION);
  const regionUrl = cloud.endpoints.regions[REGION];
  if (!region || !regionUrl) throw new Error(`no region ${REGION}`);
  const tally = countDynamoRequests(region.dynamo.client);

  process.on('message', (message) => {
    if (!parentMessage.safeParse(message).success) return;
    const cpu = process.cpuUsage();
    void toParent({ type: 'counts', ...tally, cpuMicros: cpu.user + cpu.system });
  });
  process.once('SIGTERM', () => {
    void cloud.close().then(() => process.exit(0));
  });
  await toParent({ type: 'ready', regionUrl });
}

await main();
