import { describe, expect, it } from 'vitest';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { handler as submitGateJob } from '../../functions/gate-api/submit-job.js';
import { handler as submitFromGate } from '../../functions/internal/submit-from-gate.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { GATE_REGION, REGION } from '../support/fixtures.js';
import { errorOf, invoke, type ErrorBody } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

/** A submission as the gate sends it to a region (`submit-gate-job.ts`). */
const fromGate = { jobId: 'job-1', timeoutSeconds: 300, gateRegion: GATE_REGION, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };
/** The same, from a gate one version ahead: a field this region has never heard of, at the top and in a workflow. */
const fromNewerGate = { ...fromGate, addedLater: { any: 'thing' }, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a', addedLater: 1 }] };

const fanOut = (submission: unknown) => submitFromGate({ region: REGION, submission }, localContext('vigil-test', REGION));
const refusedFields = (answer: { body: unknown }) => (answer.body as { error: ErrorBody }).error.details?.map((detail) => detail.field);

// A review finding: the gate→region body was strict, so while regions are upgraded one after another
// a region one version behind refused every field a newer gate added (400), and the gate then
// cancelled the job in every region that had accepted it. Regions read it as they read the bus.
describe('a region reads a submission from a newer gate as a tolerant reader (dynalite)', () => {
  const m = useHttpTestManager();

  it('a field it does not know, at any depth, is ignored: the job starts, and nothing of the field is stored', async () => {
    // Act
    const answer = await fanOut(fromNewerGate);
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(201);
    expect(await m.getJob('job-1')).toMatchObject({ status: 'RUNNING', tracking: { strategy: 'gate_coordinated', gateRegion: GATE_REGION } });
    expect(JSON.stringify(await m.snapshot())).not.toContain('addedLater');
  });

  it('the fields it knows are validated as strictly as ever: a bad or missing one is refused, naming only it, and nothing is stored', async () => {
    // Prepare
    const { gateRegion: _left, ...withoutGateRegion } = fromNewerGate;
    const duplicateWorkflows = { ...fromNewerGate, workflows: [...fromNewerGate.workflows, { workflowId: 'wf-1', workerId: 'worker-b' }] };
    // Act
    const answers = await Promise.all([{ ...fromNewerGate, timeoutSeconds: -5 }, withoutGateRegion, duplicateWorkflows, { ...fromNewerGate, jobId: '..' }].map(fanOut));
    // Assess
    expect(answers.map((answer) => answer.statusCode)).toEqual([400, 400, 400, 400]);
    expect(answers.map(refusedFields)).toEqual([['timeoutSeconds'], ['gateRegion'], ['workflows'], ['jobId']]);
    expect(await m.snapshot()).toEqual([]);
  });

  it("a client's own submission stays strict, to the region and to the gate: an unknown field is a 400 that names it", async () => {
    // Prepare
    const { gateRegion: _notTheClients, ...clientBody } = fromNewerGate;
    const gateBody = { jobId: 'job-1', timeoutSeconds: 300, datacenters: { [REGION]: { workflows: fromNewerGate.workflows } }, addedLater: 1 };
    // Act
    const toRegion = await invoke(submitJob, { method: 'POST', route: '/jobs', body: clientBody });
    const toGate = await invoke(submitGateJob, { method: 'POST', route: '/jobs', body: gateBody });
    // Assess
    expect([toRegion.statusCode, toGate.statusCode]).toEqual([400, 400]);
    expect(errorOf(toRegion).details?.map((detail) => detail.field).sort()).toEqual(['addedLater', 'workflows.0.addedLater']);
    expect(errorOf(toGate).details?.map((detail) => detail.field).sort()).toEqual(['addedLater', `datacenters.${REGION}.workflows.0.addedLater`]);
    expect(await m.snapshot()).toEqual([]);
  });
});
