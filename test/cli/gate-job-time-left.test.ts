import { describe, expect, it, vi } from 'vitest';
import { iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil status JOB --gate` / `vigil watch JOB --gate` on a job running in two regions.
 * The contract says watch shows "status, time left to the deadline, a progress bar per workflow or
 * region"; for a gate job it showed neither the time left nor any progress (every running region's
 * bar at `?%`), though the gate's answer carries `submittedAt`, `timeoutSeconds`, each region's
 * `totalExtensionsGranted` and, once it reported, its workflow counts (`lastReport.workflows`).
 *
 * Correct behaviour: the time left to the global deadline (contract, "Global timeout": the deadline
 * plus the largest extension total of any region), and each region's bar from its reported counts.
 */
describe('vigil status --gate on a running job', () => {
  const vigil = useFakeVigil();

  it('shows the time left to the global deadline and each region’s reported progress', async () => {
    // Prepare: submitted 10 s ago with 300 s, one region granted 30 s of extensions; a quarter of eu-west-1's workflows settled
    const fake = await vigil.fakeVigil(() => ({
      status: 200,
      body: {
        jobId: 'job-1',
        status: 'RUNNING',
        globallyTimedOut: false,
        submittedAt: iso(Date.now() - 10_000),
        timeoutSeconds: 300,
        datacenters: {
          'us-east-1': { status: 'running', lastProgressAt: iso(Date.now()), fenceToken: 1, totalExtensionsGranted: 30 },
          'eu-west-1': {
            status: 'running',
            lastProgressAt: iso(Date.now()),
            fenceToken: 1,
            totalExtensionsGranted: 0,
            lastReport: { at: iso(Date.now()), workflows: { total: 4, completed: 1, failed: 0 } },
          },
        },
      },
    }));
    // Act
    const result = await runVigil(['status', 'job-1', '--gate', '--endpoint', fake.url]);
    // Assess: 300 + 30 − 10 = 320 s, to within a second of the command's own run
    expect(result.code, result.transcript).toBe(0);
    const [header, ...regions] = result.stdout.trimEnd().split('\n');
    expect(header, result.transcript).toMatch(/^job-1 {2}RUNNING {2}5m(19|20)s left$/);
    expect(regions.find((line) => line.includes('eu-west-1')), result.transcript).toContain(' 25%');
    expect(regions.find((line) => line.includes('us-east-1')), result.transcript).toContain('?%');
  });
});
