import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { pollUntil } from '../support/poll.js';
import { processExists, runVigil } from '../support/vigil-cli.js';
import { startRecordingProxy } from '../support/recording-proxy.js';
import { ok, VigilClient } from '../support/vigil-client.js';

// Each case spawns the real command (bundled once per run; the package's bin where a case says
// `shipped`, tsx compiling on start): generous on a busy 2-core machine.
vi.setConfig({ testTimeout: 60_000 });
// A virtual clock: no job here times out (or goes stuck) while a cold command starts; a test that
// wants a job to end by time advances it (`client.advanceClock`).
const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
let scratch: string;
let client: VigilClient;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'vigil-cli-'));
  client = new VigilClient(vigil.regionUrl());
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};
const vigilAt = (args: string[], options: Parameters<typeof runVigil>[1] = {}) =>
  runVigil(args, { ...options, env: { VIGIL_ENDPOINT: vigil.regionUrl(), ...options.env } });
const newJob = async (timeoutSeconds = 300, stuckThresholdSeconds = 120) =>
  ok(await client.submitJob({ jobId: `cli-${randomUUID()}`, timeoutSeconds, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }));

describe('vigil: usage', () => {
  it('no command prints the usage and exits 2; --help exits 0', async () => {
    // The package's bin as npx runs it: the shipped entry point, tsx and all.
    const [bare, help] = await Promise.all([runVigil([], { shipped: true }), runVigil(['--help'], { shipped: true })]);
    expect(bare.code).toBe(2);
    expect(bare.stdout).toContain('Usage: vigil <command>');
    expect(help.code).toBe(0);
  });

  it('every subcommand explains itself with --help', async () => {
    const subcommands = ['submit', 'status', 'watch', 'cancel', 'pools create', 'pools status', 'dlq list', 'dlq retry', 'escalations list', 'escalations answer', 'run'];
    // One process per subcommand, all at once.
    const results = await Promise.all(subcommands.map(async (words) => ({ words, result: await runVigil([...words.split(' '), '--help']) })));
    for (const { words, result } of results) {
      expect(result.code, result.transcript).toBe(0);
      expect(result.stdout).toContain(`Usage: vigil ${words}`);
      // The commands that answer at once give up on a silent Vigil; the runner keeps its own deadlines.
      expect(result.stdout.includes('--call-timeout S'), result.transcript).toBe(words !== 'run');
    }
  }, 120_000);

  it('an unknown command, an unknown flag or a missing argument exits 2 and says how to fix it', async () => {
    const [unknown, flag, missing] = await Promise.all([runVigil(['frobnicate']), vigilAt(['status', 'j', '--no-such-flag']), vigilAt(['status'])]);
    expect(unknown.code).toBe(2);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--no-such-flag'");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Missing JOB');
  });

  it('without an endpoint it says where one comes from (exit 2); an endpoint that does not answer is exit 4', async () => {
    const [none, down] = await Promise.all([runVigil(['status', 'j'], { cwd: scratch }), runVigil(['status', 'j', '--endpoint', 'http://127.0.0.1:9'])]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--endpoint');
    expect(down.code, down.transcript).toBe(4);
  });
});

describe('vigil: jobs', () => {
  it('submit FILE (JSON or YAML) prints the job and its tokens; --json is machine-readable', async () => {
    const [json, yaml] = await Promise.all([
      vigilAt(['submit', file('job.json', JSON.stringify({ timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'w' }] })), '--json']),
      vigilAt(['submit', file('job.yaml', 'timeoutSeconds: 60\nworkflows:\n  - workflowId: wf-1\n    workerId: w\n')]),
    ]);
    expect(json.code, json.transcript).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'RUNNING', workflows: [{ workflowId: 'wf-1', token: expect.any(String) }] });
    expect(yaml.code, yaml.transcript).toBe(0);
    expect(yaml.stdout).toMatch(/^submitted \S+ RUNNING deadline /);
  });

  it('submit of a missing file or an invalid job exits 2 with the reason', async () => {
    const [missing, invalid] = await Promise.all([
      vigilAt(['submit', join(scratch, 'nope.json')]),
      vigilAt(['submit', file('bad.json', JSON.stringify({ timeoutSeconds: -1, workflows: [] }))]),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('Cannot read');
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain('invalid_request');
    expect(invalid.stderr).toContain('timeoutSeconds');
  });

  it('status exits 0 while RUNNING, 2 for an unknown job, 3 once cancelled; cancel twice is exit 2', async () => {
    const job = await newJob();
    const [running, unknown] = await Promise.all([vigilAt(['status', job.jobId]), vigilAt(['status', 'no-such-job'])]);
    const cancel = await vigilAt(['cancel', job.jobId, '--reason', 'test']);
    const again = await vigilAt(['cancel', job.jobId]);
    const cancelled = await vigilAt(['status', job.jobId, '--json']);
    expect(running.code, running.transcript).toBe(0);
    expect(running.stdout).toContain('RUNNING');
    expect(running.stdout).toMatch(/wf-1\s+\[/);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('job_not_found');
    expect(cancel.code, cancel.transcript).toBe(0);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('job_finished');
    expect(cancelled.code).toBe(3);
    expect(JSON.parse(cancelled.stdout)).toMatchObject({ status: 'CANCELLED' });
  });

  it('status of a FAILED job exits 1', async () => {
    const job = await newJob();
    const token = job.workflows[0]?.token ?? '';
    ok(await client.complete(job.jobId, 'wf-1', { workerId: 'worker-a', outcome: 'failed' }, token));
    const result = await vigilAt(['status', job.jobId]);
    expect(result.code, result.transcript).toBe(1);
  });

  it('watch prints plain lines when not on a terminal and ends with the job (TIMED_OUT: exit 3)', async () => {
    // Prepare: a 6 s job, its time frozen until watch has shown it RUNNING
    const job = await newJob(6);
    let output = '';
    const watching = vigilAt(['watch', job.jobId, '--interval', '0.2'], { timeoutMs: 60_000, onStdout: (soFar) => (output = soFar) });
    await pollUntil(async () => (output.includes('RUNNING') ? true : undefined), { what: () => `a RUNNING line from watch; so far:\n${output}`, timeoutMs: 45_000 });
    // Act: the job's time passes its deadline
    await client.advanceClock(7_000);
    // Assess
    const result = await watching;
    expect(result.code, result.transcript).toBe(3);
    const lines = result.stdout.trim().split('\n');
    expect(lines[0]).toContain('RUNNING');
    expect(lines.at(-2) ?? '').toContain('TIMED_OUT');
    expect(result.stdout).not.toContain('\x1b[');
  });

  it('finds the endpoint in .vigil/endpoints.json, and the gate there with --gate', async () => {
    const dir = mkdtempSync(join(scratch, 'project-'));
    mkdirSync(join(dir, '.vigil'));
    writeFileSync(join(dir, '.vigil', 'endpoints.json'), readFileSync(join(vigil.dataDir, 'endpoints.json')));
    const job = await newJob();
    const [region, gate, env] = await Promise.all([
      // What a user types in a project folder: `npx vigil status JOB`, through the shipped bin.
      runVigil(['status', job.jobId], { cwd: dir, shipped: true }),
      runVigil(['status', job.jobId, '--gate'], { cwd: dir }),
      runVigil(['status', job.jobId], { cwd: scratch, env: { VIGIL_ENDPOINT: vigil.regionUrl() } }),
    ]);
    expect(region.code, region.transcript).toBe(0);
    expect(gate.code, gate.transcript).toBe(2); // the gate does not know a region's local job
    expect(gate.stderr).toContain('job_not_found');
    expect(env.code, env.transcript).toBe(0);
  });
});

describe('vigil: pools, DLQ and escalations', () => {
  it('pools create FILE and pools status', async () => {
    const poolId = `cli-pool-${randomUUID().slice(0, 8)}`;
    const created = await vigilAt(['pools', 'create', file(`${poolId}.json`, JSON.stringify({ poolId, items: [{ itemId: 'i-1', input: {} }] })), '--json']);
    const [status, dlq] = await Promise.all([vigilAt(['pools', 'status', poolId, '--json']), vigilAt(['dlq', 'list', poolId, '--json'])]);
    expect(created.code, created.transcript).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ poolId, status: 'RUNNING' });
    expect(status.code, status.transcript).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ poolId, status: 'RUNNING' });
    expect(dlq.code, dlq.transcript).toBe(0);
    expect(JSON.parse(dlq.stdout)).toMatchObject({ items: [] });
  });

  it('pools create from a YAML file with a bad config exits 2 naming the field', async () => {
    const yaml = 'poolId: cli-bad\nitems:\n  - itemId: i-1\nmap:\n  timeout_config:\n    timeout_action: explode\n';
    const result = await vigilAt(['pools', 'create', file('bad-pool.yaml', yaml)]);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toContain('timeout_action');
  });

  it('dlq retry of an item not in the DLQ, and an answer to an unknown escalation, exit 2; escalations list exits 0', async () => {
    const [retry, answer, list] = await Promise.all([
      vigilAt(['dlq', 'retry', 'no-such-pool', 'i-1']),
      vigilAt(['escalations', 'answer', 'no-such-escalation', 'skip']),
      vigilAt(['escalations', 'list', '--json']),
    ]);
    expect(retry.code, retry.transcript).toBe(2);
    expect(answer.code, answer.transcript).toBe(2);
    expect(list.code, list.transcript).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveProperty('escalations');
  });
});

describe('vigil run --job', () => {
  it("forwards the child's progress and completes the workflow when it exits 0", async () => {
    const job = await newJob();
    const token = job.workflows[0]?.token ?? '';
    const proxy = await startRecordingProxy(vigil.regionUrl());
    const child = 'echo 0.5 > "$VIGIL_PROGRESS_FILE"; sleep 1; echo "{\\"progress\\":0.9,\\"step\\":\\"b\\"}" > "$VIGIL_PROGRESS_FILE"; sleep 1';
    const result = await runVigil(['run', '--job', job.jobId, '--workflow', 'wf-1', '--worker', 'worker-a', '--token', token, '--', 'sh', '-c', child], {
      env: { VIGIL_ENDPOINT: proxy.url },
    });
    await proxy.close();
    expect(result.code, result.transcript).toBe(0);
    expect(ok(await client.getJob(job.jobId))).toMatchObject({ status: 'COMPLETED', workflows: [{ state: 'completed' }] });
    const reported = proxy.requests.filter((r) => r.path.endsWith('/progress')).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(reported).toEqual(expect.arrayContaining([{ workerId: 'worker-a', progress: 0.5 }, { workerId: 'worker-a', progress: 0.9, step: 'b' }]));
  });

  it('stops the child when the job is cancelled: SIGTERM to its group, exit 3, no orphan', async () => {
    // A 6 s stuck threshold: the runner heartbeats every 1.5 s, so it hears the cancel within that.
    // Vigil's time stays frozen (virtual clock), so only the cancel can end the job, however long the
    // cold `vigil run` takes to start the child.
    const job = await newJob(300, 6);
    const token = job.workflows[0]?.token ?? '';
    const pidFile = join(scratch, `${job.jobId}.pid`);
    const running = vigilAt(['run', '--job', job.jobId, '--workflow', 'wf-1', '--worker', 'worker-a', '--token', token, '--grace', '2', '--', 'sh', '-c', `sleep 60 & echo $! > ${pidFile}; wait`]);
    const grandchild = await pollUntil(async () => {
      try {
        return Number(readFileSync(pidFile, 'utf8').trim()) || undefined;
      } catch {
        return undefined;
      }
    }, { what: 'the child to start', timeoutMs: 20_000 });
    ok(await client.cancel(job.jobId, { reason: 'test' }));
    const result = await running;
    expect(result.code, result.transcript).toBe(3);
    expect(processExists(grandchild)).toBe(false);
  });
});
