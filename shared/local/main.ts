// Local-cloud defaults, set before any module reads them: metrics are counted in-process
// (GET /_local/metrics) instead of printed as EMF, and the AWS SDK's Node 20 notice is off.
process.env['POWERTOOLS_METRICS_DISABLED'] ??= 'true';
process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
process.env['POWERTOOLS_LOG_LEVEL'] ??= 'INFO';

const { mkdirSync, rmSync } = await import('node:fs');
const { join } = await import('node:path');
const { asksForHelp, parseFlags, usage } = await import('./cli-flags.js');
const { lockDataDir } = await import('./data-dir-lock.js');
const { leftOutMessage, regionsLeftOut } = await import('./regions-left-out.js');

if (asksForHelp(process.argv.slice(2))) {
  console.log(usage);
  process.exit(0);
}
let flags;
try {
  flags = parseFlags(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}

// One run per data dir; then a killed run's map, naming dead listeners, is gone first thing, so it
// is not read for this run's.
try {
  mkdirSync(flags.dataDir, { recursive: true });
} catch (error) {
  console.error(`--data-dir '${flags.dataDir}' cannot be used as the data directory (${(error as NodeJS.ErrnoException).code ?? String(error)}): pass a directory, or a path where one can be made.`);
  process.exit(2);
}
try {
  lockDataDir(flags.dataDir);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const leftOut = regionsLeftOut(flags.dataDir, flags.regions);
if (leftOut.length > 0) {
  console.error(leftOutMessage(flags.dataDir, flags.regions, leftOut));
  process.exit(2);
}
rmSync(join(flags.dataDir, 'endpoints.json'), { force: true });
const { startLocalCloud } = await import('./local-cloud.js');
const cloud = await startLocalCloud(flags).catch((error: unknown) => {
  const { code, port } = error as { code?: string; port?: number };
  if (code === 'EADDRINUSE') console.error(`Port ${port ?? ''} is in use (another npm start?). Stop it, or pass another --port.`);
  else console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
console.log(`gate ${cloud.endpoints.gate}`);
for (const [region, url] of Object.entries(cloud.endpoints.regions)) console.log(`${region} ${url}`);
if (cloud.clock.virtual) console.log(`virtual clock at ${new Date(cloud.clock.virtual.now()).toISOString()}: advance it with POST /_local/clock/advance {"ms": n}`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.error(`${signal}: stopping Vigil`);
  await cloud.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
