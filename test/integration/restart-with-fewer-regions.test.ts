import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { GateClient } from '../support/gate-client.js';
import { ok, VigilClient } from '../support/vigil-client.js';
import { VigilProcess } from '../support/vigil-process.js';

/**
 * A review finding. Scenario: `npm start -- --regions us-east-1,eu-west-1` accepts a local-authority job in eu-west-1 and
 * a gate job spanning both regions; the process is killed (SIGKILL) and started again on the same
 * data dir with `--regions us-east-1`.
 *
 * What is lost: the restart succeeds and says nothing. eu-west-1's dynalite (data-dir/dynamodb/eu-west-1)
 * still holds the RUNNING jobs, but no manager runs it: their wake-ups are never re-armed or swept, so
 * they never time out; nobody can reach them over HTTP; the gate job's eu-west-1 part shows `running`
 * forever and the gate's decisions to eu-west-1 go to no consumer. Accepted jobs silently stop being
 * tracked.
 *
 * Now a restart that leaves out a region the data dir holds is refused (exit 2), naming the region
 * and how to go on; started again with it, every job is there and still running.
 */
const DROPPED = 'eu-west-1';
let vigil: VigilProcess | undefined;

afterEach(async () => {
  await vigil?.stop();
  vigil = undefined;
});

/** The output of the last launch only (VigilProcess marks each launch with a `--- … starting Vigil` line). */
function outputOfLastLaunch(process: VigilProcess): string {
  let text = '';
  try {
    text = readFileSync(process.logFile, 'utf8');
  } catch {
    return '';
  }
  const start = text.lastIndexOf('--- ');
  return start < 0 ? text : text.slice(start);
}

describe('restart with a region left out of --regions', () => {
  it('is refused naming the region left out; started with it again, its jobs are all there', async () => {
    // Prepare: two regions, a RUNNING local job in the one that will be left out, and a gate job in both.
    vigil = await VigilProcess.start({ regions: ['us-east-1', DROPPED] });
    const dropped = new VigilClient(vigil.regionUrl(DROPPED));
    ok(await dropped.submitJob({ jobId: 'local-in-dropped', timeoutSeconds: 600, stuckThresholdSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'w-1' }] }));
    const gate = new GateClient(vigil.endpoints.gate);
    ok(
      await gate.submitJob({
        jobId: 'gate-job',
        timeoutSeconds: 600,
        stuckThresholdSeconds: 600,
        datacenters: { 'us-east-1': { workflows: [{ workflowId: 'wf-a', workerId: 'w-a' }] }, [DROPPED]: { workflows: [{ workflowId: 'wf-b', workerId: 'w-b' }] } },
      }),
    );
    expect(ok(await dropped.getJob('local-in-dropped')).status).toBe('RUNNING');

    // Act: kill -9, then start again on the same data dir without eu-west-1.
    await vigil.kill('SIGKILL');
    vigil.options.regions = ['us-east-1'];
    const refusal = await vigil.restart().then(
      () => undefined,
      (error: unknown) => (error as Error).message,
    );
    const output = outputOfLastLaunch(vigil);

    // Assess: refused, naming eu-west-1 and the flag that keeps it; with it, nothing was lost
    expect(refusal, `the restart with --regions us-east-1 started although ${DROPPED} holds running jobs; output:\n${output}`).toBeDefined();
    expect(output).toContain(`--regions us-east-1,${DROPPED}`);
    vigil.options.regions = ['us-east-1', DROPPED];
    await vigil.restart();
    expect(ok(await new VigilClient(vigil.regionUrl(DROPPED)).getJob('local-in-dropped')).status).toBe('RUNNING');
    expect(ok(await new GateClient(vigil.endpoints.gate).getJob('gate-job')).datacenters[DROPPED]?.status).toBe('running');
  }, 120_000);
});
