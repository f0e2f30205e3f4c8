import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../shared/domain/effects.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { EU, REGIONS, T0, leaderTransfer } from './gate-fixtures.js';

const steps = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('accepted' as const), fenceToken: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('transfer' as const), fenceToken: fc.integer({ min: 2, max: 4 }) }),
  ),
  { minLength: 1, maxLength: 6 },
);

/**
 * A region's acceptance (the gate's record of its submit answer) and its takeovers' reports, delivered
 * in any order and repeated: the gate ends up with the region's start, which no takeover moves, and the
 * highest fence heard, whatever came first; an acceptance older than a fence heard sends nothing.
 */
describe("a region's acceptance and its leader transfers, in any order", () => {
  it('keep the start and the highest fence; an overtaken acceptance is sent nothing', () => {
    fc.assert(
      fc.property(steps, fc.integer({ min: 0, max: 120_000 }), (order, startedAfterMs) => {
        // Prepare
        const startedAt = T0 + startedAfterMs;
        let job: GateJob = startGateJob({ jobId: 'job-1', timeoutSeconds: 300, datacenters: Object.fromEntries(REGIONS.map((r) => [r, {}])) }, 'd', T0).state;
        // Act
        for (const step of order) {
          const highest = job.dcFenceToken[EU] ?? 0;
          const decision: Decision<GateJob> =
            step.kind === 'accepted' ? markRegionSubmitted(job, EU, step.fenceToken, { startedAt }) : onLeaderTransfer(job, leaderTransfer(EU, step.fenceToken));
          if (step.fenceToken < highest) expect(decision.effects.filter((effect) => effect.type === 'Publish')).toEqual([]);
          job = decision.state;
        }
        // Assess
        const accepted = order.some((step) => step.kind === 'accepted');
        expect(job.dcStartedAt?.[EU]).toBe(accepted ? startedAt : undefined);
        expect(job.dcFenceToken[EU]).toBe(Math.max(...order.map((step) => step.fenceToken)));
        expect(job.dcStatus[EU]).toBe('running');
      }),
    );
  });
});
