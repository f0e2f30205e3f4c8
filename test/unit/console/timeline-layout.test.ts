import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HistoryEntryJson, JobHistoryJson } from '../../../shared/console/web/src/history-types.js';
import { layoutTimeline, type Mark } from '../../../shared/console/web/src/timeline-layout.js';
import { jobHistory } from '../../support/job-history.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const iso = (offsetSeconds: number) => new Date(T0 + offsetSeconds * 1000).toISOString();

const history = (overrides: Partial<JobHistoryJson> = {}, entries: HistoryEntryJson[] = []) => jobHistory(T0, overrides, entries);

const marksOf = (layout: ReturnType<typeof layoutTimeline>, kind: string): Mark[] => layout.lanes.flatMap((lane) => lane.marks.filter((m) => m.kind === kind));
const only = (marks: Mark[]): Mark => {
  expect(marks).toHaveLength(1);
  return marks[0] as Mark;
};

describe('timeline layout from a decision history', () => {
  it('draws each extension as an arrow from the deadline it moved to the new one', () => {
    // Prepare: two grants, 100 s → 130 s → 145 s.
    const h = history({ effectiveDeadlineAt: iso(145) }, [
      { kind: 'extension', at: iso(20), workerId: 'w-a', seconds: 30, fromDeadlineAt: iso(100), toDeadlineAt: iso(130) },
      { kind: 'extension', at: iso(40), workerId: 'w-a', seconds: 15, fromDeadlineAt: iso(130), toDeadlineAt: iso(145) },
    ]);
    // Act
    const layout = layoutTimeline([h], 1000);
    // Assess
    const deadline = only(marksOf(layout, 'deadline'));
    const effective = only(marksOf(layout, 'effective-deadline'));
    const [first, second] = marksOf(layout, 'extension');
    expect(first?.x).toBeCloseTo(deadline.x);
    expect(first?.x2).toBeCloseTo(second?.x ?? NaN);
    expect(second?.x2).toBeCloseTo(effective.x);
    expect(first?.label).toBe('+30s w-a');
    expect(effective.x).toBeGreaterThan(deadline.x);
  });

  it('progress reports and heartbeats get different marks', () => {
    const h = history({}, [
      { kind: 'progress', at: iso(10), workflowId: 'wf', workerId: 'w', progress: 0.5 },
      { kind: 'heartbeat', at: iso(20), workflowId: 'wf', workerId: 'w' },
    ]);
    const layout = layoutTimeline([h], 1000);
    expect(only(marksOf(layout, 'progress')).shape).toBe('dot');
    expect(only(marksOf(layout, 'heartbeat')).shape).toBe('ring');
  });

  it('the stuck window runs from the last progress for the stuck threshold, while the job runs', () => {
    const h = history({ lastProgressAt: iso(5) }, [{ kind: 'progress', at: iso(12), workflowId: 'wf', workerId: 'w' }]);
    const layout = layoutTimeline([h], 1000);
    const [span] = layout.lanes[0]?.spans ?? [];
    const toX = (seconds: number) => 110 + (seconds * 1000) * ((1000 - 110 - 24) / (layout.endMs - layout.startMs));
    expect(span?.x).toBeCloseTo(toX(12));
    expect(span?.x2).toBeCloseTo(toX(42));
  });

  it('a job that ended for another reason than stuck has no stuck window; one that was stuck keeps it', () => {
    const completed = layoutTimeline([history({ status: 'COMPLETED', finishedAt: iso(60) })], 1000);
    const stuck = layoutTimeline([history({ status: 'TIMED_OUT', timeoutReason: 'stuck', finishedAt: iso(30) })], 1000);
    expect(completed.lanes[0]?.spans).toEqual([]);
    expect(stuck.lanes[0]?.spans).toHaveLength(1);
  });

  it('one lane per source, the gate first; gate reports, the decision, confirmations and takeovers with their fence tokens', () => {
    const gate = history({ source: 'gate', stuckThresholdSeconds: undefined }, [
      { kind: 'gate_report', at: iso(10), region: 'eu-west-1', lastProgressAt: iso(9) },
      { kind: 'gate_decision', at: iso(100), decision: 'global_timeout', reason: 'timeout', fenceToken: 1 },
      { kind: 'region_confirmed', at: iso(101), region: 'eu-west-1', status: 'timed_out' },
    ]);
    const eu = history({ source: 'eu-west-1' }, [{ kind: 'takeover', at: iso(30), fromFenceToken: 1, toFenceToken: 2 }]);
    const us = history({ source: 'us-east-1' });
    const layout = layoutTimeline([us, eu, gate], 1000);
    expect(layout.lanes.map((lane) => lane.source)).toEqual(['gate', 'eu-west-1', 'us-east-1']);
    expect(new Set(layout.lanes.map((lane) => lane.y)).size).toBe(3);
    expect(only(marksOf(layout, 'takeover')).label).toBe('fence 1→2');
    expect(only(marksOf(layout, 'decision')).title).toContain('global_timeout (timeout), fence 1');
    expect(only(marksOf(layout, 'confirmed')).label).toBe('eu-west-1');
    expect(only(marksOf(layout, 'gate-report')).shape).toBe('square');
  });

  it('labels close together go to different rows', () => {
    const h = history({}, [
      { kind: 'timeout_report', at: iso(100), reason: 'timeout' },
      { kind: 'gate_decision', at: iso(100), decision: 'global_timeout', fenceToken: 1 },
      { kind: 'final', at: iso(100), status: 'TIMED_OUT', reason: 'global_timeout' },
    ]);
    const layout = layoutTimeline([h], 1000);
    const rows = ['timeout-report', 'decision', 'final'].map((kind) => only(marksOf(layout, kind)).labelY);
    expect(new Set(rows).size).toBe(3);
  });

  it('a label near the right edge goes left of its mark', () => {
    const layout = layoutTimeline([history({ status: 'TIMED_OUT', finishedAt: iso(100) }, [{ kind: 'final', at: iso(100), status: 'TIMED_OUT', reason: 'global_timeout' }])], 400);
    const final = only(marksOf(layout, 'final'));
    expect(final.labelX ?? 0).toBeLessThan(final.x);
  });

  it('nothing is drawn outside the plot, whatever the history holds', () => {
    const entry = fc.record({
      kind: fc.constantFrom('progress', 'heartbeat', 'gate_report', 'timeout_report', 'local_timeout', 'gate_decision', 'region_confirmed', 'takeover', 'final', 'extension'),
      at: fc.integer({ min: -1000, max: 10_000 }).map(iso),
      fromDeadlineAt: fc.integer({ min: 0, max: 10_000 }).map(iso),
      toDeadlineAt: fc.integer({ min: 0, max: 10_000 }).map(iso),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 60 }), fc.integer({ min: 200, max: 2000 }), (entries, width) => {
        const layout = layoutTimeline([history({}, entries)], width);
        for (const mark of layout.lanes.flatMap((lane) => lane.marks)) {
          for (const x of [mark.x, mark.x2 ?? mark.x]) {
            expect(x).toBeGreaterThanOrEqual(110);
            expect(x).toBeLessThanOrEqual(width - 24 + 1e-6);
          }
          if (mark.label && mark.shape !== 'arrow') expect((mark.labelX ?? 0) + mark.label.length * 5.6).toBeLessThanOrEqual(width);
        }
      }),
      { numRuns: 200 },
    );
  });
});

// Console review: one entry with an unparsable time made the whole job page throw (RangeError).
describe('timeline layout: odd answers', () => {
  it('a progress entry with an unparsable time does not make the whole job page throw', () => {
    const h = history({}, [{ kind: 'progress', at: 'not-a-time', workflowId: 'wf-1', workerId: 'w-1', progress: 0.5 }]);
    expect(() => layoutTimeline([h], 960)).not.toThrow();
  });
});
