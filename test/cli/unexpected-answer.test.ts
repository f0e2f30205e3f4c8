import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command (tsx compiles on start): generous on a busy machine.
vi.setConfig({ testTimeout: 60_000 });

/** The gate's 201 to a submit (contract, "Gate API"). */
const gateSubmitted = { jobId: 'job-1', strategy: 'gate_coordinated', datacenters: { 'us-east-1': { workflows: [{ workflowId: 'a', workerId: 'wa', token: 'tok-a' }] }, 'eu-west-1': { workflows: [{ workflowId: 'b', workerId: 'wb', token: 'tok-b' }] } } };
/** A region manager's 201 to a submit (contract, "Region manager API"). */
const regionSubmitted = { jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000), workflows: [{ workflowId: 'wf-1', workerId: 'w', token: 'tok-1' }] };
const regionJob = { timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'w' }] };
const gateJob = { timeoutSeconds: 300, datacenters: { 'us-east-1': { workflows: [{ workflowId: 'a', workerId: 'wa' }] }, 'eu-west-1': { workflows: [{ workflowId: 'b', workerId: 'wb' }] } } };

describe('the vigil command on an answer it does not expect', () => {
  const vigil = useFakeVigil();
  const jobFile = (name: string, job: unknown) => {
    const path = join(vigil.scratch(), name);
    writeFileSync(path, JSON.stringify(job));
    return path;
  };

  // Review finding: a gate's answer read as a region's ended in exit 1 (the job failed) and a stack trace.
  it('status against an endpoint that answers an unexpected shape (the gate, without --gate) is exit 2 with a message, not exit 1 and a stack', async () => {
    // Prepare: a gate's job answer, asked without --gate
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { jobId: 'job-1', status: 'RUNNING', globallyTimedOut: false, datacenters: { 'us-east-1': { status: 'running', lastProgressAt: iso(Date.now()), fenceToken: 1 } } } }));
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess: exit 1 means "the job failed", which is not what happened
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).not.toMatch(/^\s+at /m);
  });

  // First-time user: a gate job submitted with --endpoint at the gate but no --gate was created, and the
  // command exited 2 without its id or tokens: the job was orphaned.
  it('submit without --gate whose answer is the gate\'s prints the job id and every region\'s tokens, exit 0', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 201, body: gateSubmitted }));
    // Act
    const result = await runVigil(['submit', jobFile('gate-job.json', gateJob), '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(result.stdout, result.transcript).toContain('submitted job-1 (gate_coordinated)');
    expect(result.stdout, result.transcript).toMatch(/us-east-1 a wa token tok-a/);
    expect(result.stdout, result.transcript).toMatch(/eu-west-1 b wb token tok-b/);
  });

  it('submit --gate whose answer is a region\'s (--endpoint at a region) prints the job id and its tokens, exit 0', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 201, body: regionSubmitted }));
    // Act
    const result = await runVigil(['submit', jobFile('region-job.json', regionJob), '--gate', '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(result.stdout, result.transcript).toMatch(/^submitted job-1 RUNNING deadline /);
    expect(result.stdout, result.transcript).toContain('wf-1 w token tok-1');
  });

  it('submit of a job file with datacenters and no --gate goes to the gate of .vigil/endpoints.json, not to its first region', async () => {
    // Prepare: a project folder whose endpoints name a fake gate and a fake region
    const gate = await vigil.fakeVigil(() => ({ status: 201, body: gateSubmitted }));
    const region = await vigil.fakeVigil(() => errorReply(400, 'invalid_request', 'datacenters: is not a field of this request'));
    const project = mkdtempSync(join(vigil.scratch(), 'project-'));
    mkdirSync(join(project, '.vigil'));
    writeFileSync(join(project, '.vigil', 'endpoints.json'), JSON.stringify({ gate: gate.url, regions: { 'us-east-1': region.url } }));
    // Act
    const result = await runVigil(['submit', jobFile('gate-job-here.json', gateJob)], { cwd: project });
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(gate.seen.map((s) => `${s.method} ${s.path}`)).toEqual(['POST /jobs']);
    expect(region.seen).toEqual([]);
    expect(result.stdout, result.transcript).toMatch(/us-east-1 a wa token tok-a/);
  });

  it('submit whose 2xx answer is neither a region\'s nor the gate\'s exits 2 and still shows the answer, job id included', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 201, body: { jobId: 'job-odd', tokens: ['tok-odd'] } }));
    // Act
    const result = await runVigil(['submit', jobFile('odd-job.json', regionJob), '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('job-odd');
    expect(result.stderr, result.transcript).toContain('tok-odd');
  });
});
