import './gate/quiet-logs.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../shared/adapters/local/virtual-clock.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { LOCAL_JOBS_TABLE } from '../../shared/local/local-region.js';
import { useTempClouds } from './support/temp-clouds.js';
import { ok, VigilClient } from '../support/vigil-client.js';

const DYNALITE_PATH = createRequire(import.meta.url).resolve('dynalite');
const { tempDir, start } = useTempClouds('vigil-mid-create-');
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/**
 * dynalite creates a table in two LevelDB writes: the table as CREATING, then (createTableMs later, 0 in
 * the local cloud) the table as ACTIVE. This dynalite waits an hour between them, so the kill -9 below
 * lands where a kill of the very first `npm start` (or a Ctrl-C before it listens) can land.
 */
const SLOW_CREATING_DYNALITE = `
const { dynalitePath, dataPath } = JSON.parse(process.env.SLOW_CREATING_DYNALITE);
const server = require(dynalitePath)({ path: dataPath, createTableMs: 3600000 });
server.listen(0, '127.0.0.1', () => console.log('PORT ' + server.address().port));
`;

async function startSlowDynalite(dataPath: string): Promise<{ child: ChildProcess; endpoint: string; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['-e', SLOW_CREATING_DYNALITE], {
    env: { ...process.env, SLOW_CREATING_DYNALITE: JSON.stringify({ dynalitePath: DYNALITE_PATH, dataPath }) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /PORT (\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`dynalite exited before listening: ${out}`)));
  });
  return { child, endpoint: `http://127.0.0.1:${port}`, exited };
}

describe('kill -9 of the first start while it creates a region table', () => {
  it('leaves a data dir that the next npm start opens and serves (the table is not stuck CREATING)', async () => {
    // Prepare: the region's table is written CREATING in the region's data dir, then the process dies.
    const dataDir = tempDir();
    const slow = await startSlowDynalite(join(dataDir, 'dynamodb', 'us-east-1'));
    const client = new DynamoDBClient({ endpoint: slow.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' }, maxAttempts: 1 });
    const creating = ensureTable(client, LOCAL_JOBS_TABLE, true).catch(() => undefined);
    const giveUpAt = Date.now() + 10_000;
    let status: string | undefined;
    while (status !== 'CREATING' && Date.now() < giveUpAt) {
      status = await client.send(new DescribeTableCommand({ TableName: LOCAL_JOBS_TABLE })).then((answer) => answer.Table?.TableStatus, () => undefined);
      if (status !== 'CREATING') await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status, 'the table was written CREATING before the kill').toBe('CREATING');
    slow.child.kill('SIGKILL');
    await slow.exited;
    client.destroy();
    await creating;

    // Act: start on the same data dir.
    const startedAt = Date.now();
    const cloud = await start(dataDir, { clock: new VirtualClock(Date.parse('2030-01-01T00:00:00.000Z')) });
    const region = new VigilClient(cloud.endpoints.regions['us-east-1'] ?? '');
    const submitted = ok(await region.submitJob({ jobId: 'after-crash', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }));

    // Assess: it started without waiting out a table that never becomes ACTIVE, and serves jobs.
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(submitted.status).toBe('RUNNING');
    expect(ok(await region.getJob('after-crash')).status).toBe('RUNNING');
  }, 90_000);
});
