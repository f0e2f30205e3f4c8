import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { ok } from '../../support/vigil-client.js';
import { eventsOf, inEveryRegion, passTime, regionViews, REGIONS, submitAcross, timedOutGlobally, useGateCloud, type Region } from './gate-cloud.js';

/**
 * Fencing across regions (seed 001 §10.7.6, seed 000 Scenario 3) on the real local cloud and its
 * virtual clock. Every delivery takes exactly DELAY_MS of virtual time, so a global timeout is on the
 * wire while the test, time standing still, takes the region over: it then carries the old fence token. The region must reject it, correct
 * the gate with a JobLeaderTransfer, and still end TIMED_OUT global_timeout from the re-issued decision.
 */
const DELAY_MS = 600;

const gc = useGateCloud({ virtualClock: true });
const run = randomUUID().slice(0, 8);

beforeAll(async () => {
  ok(await gc.gate.setFaults({ delayMs: [DELAY_MS, DELAY_MS] }));
});

const cases: Array<{ name: string; takenOver: Region }> = [
  { name: 'seed 000 Scenario 3: the region that reported the timeout', takenOver: 'us-east-1' },
  { name: '§10.7.6 across regions: another region', takenOver: 'eu-west-1' },
];

describe('a global timeout sent before a takeover still ends the job everywhere', () => {
  it.for(cases)('$name is taken over while the decision is on the wire', async ({ takenOver }, { expect }) => {
    // Prepare: us-east-1 goes stuck after 1.5 s and reports; the other regions keep progressing.
    const job = await submitAcross(gc, { jobId: `stale-${takenOver}-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1.5 });
    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];
    const decisionFor = () => eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === takenOver);
    await passTime(gc, 10_000, { everyMs: 100, reporting: alive, until: () => decisionFor() !== undefined });
    const stale = decisionFor();
    if (!stale) throw new Error(`no global timeout for ${takenOver} within 10 s of virtual time`);

    // Act: leadership moves in that region before the decision arrives.
    expect(ok(await gc.region(takenOver).takeOver(job.jobId))).toEqual({ fenceToken: 2 });
    const takenOverAt = gc.clock.now();
    await passTime(gc, 10_000, { everyMs: 100, reporting: alive, until: inEveryRegion(gc, job.jobId, timedOutGlobally) });
    const regions = await regionViews(gc, job.jobId);

    // Assess: the premise held (the decision was addressed to token 1 and had not arrived yet) …
    expect(stale.detail['fenceToken']).toBe(1);
    expect(takenOverAt).toBeLessThan(stale.at + DELAY_MS);
    // … the region rejected it and corrected the gate once it landed …
    const events = eventsOf(gc.cloud, job.jobId);
    const corrections = events.filter((e) => e.detailType === 'JobLeaderTransfer' && e.origin === takenOver && e.at >= stale.at + DELAY_MS);
    expect(corrections.length).toBeGreaterThanOrEqual(1);
    expect(corrections[0]?.detail['fenceToken']).toBe(2);
    // … the gate re-issued the decision with the current token, and every region ended by it.
    const reissued = events.filter((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === takenOver && e.detail['fenceToken'] === 2);
    expect(reissued.length).toBeGreaterThanOrEqual(1);
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    expect(regions[takenOver]).toMatchObject({ fenceToken: 2 });
    // JobTimedOut is at least once: a wake-up that meets the decision's outbox publishes it too.
    const timedOut = events.filter((e) => e.detailType === 'JobTimedOut');
    expect(new Set(timedOut.map((e) => e.origin))).toEqual(new Set(REGIONS));
    expect(timedOut.find((e) => e.origin === takenOver)?.detail).toMatchObject({ reason: 'global_timeout', fenceToken: 2 });
    expect(ok(await gc.gate.metrics())[`${takenOver} StaleMessageRejected{kind=global_timeout}`]).toBeGreaterThanOrEqual(1);
  });
});
