/**
 * Bench child: the local cloud the console bench renders against (two regions, as the browser tests
 * run it), in its own process with its logs silenced before it loads, as the gate bench's cloud: only
 * the bench's tables reach stdout. Tells the parent its listeners; stops on SIGTERM.
 */
import { toParent } from './bench-child.js';

async function main(): Promise<void> {
  process.env['POWERTOOLS_LOG_LEVEL'] = 'SILENT';
  const { startConsoleCloud } = await import('../browser/console-cloud.js');
  const env = await startConsoleCloud(['us-east-1', 'eu-west-1']);
  const regionUrl = env.cloud.endpoints.regions['us-east-1'];
  if (!regionUrl) throw new Error('no region us-east-1');
  process.once('SIGTERM', () => {
    void env.stop().then(() => process.exit(0));
  });
  await toParent({ type: 'ready', gateUrl: env.cloud.endpoints.gate, regionUrl });
}

await main();
