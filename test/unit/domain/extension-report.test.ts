import { describe, expect, it } from 'vitest';
import { withExtensionReport } from '../../../shared/domain/gate-reports.js';
import { at, context, GATE_REGION, runningJob, extensionOf } from '../../support/fixtures.js';

describe('an extension on a gate-coordinated job is reported to the gate at once', () => {
  it('publishes a progress report carrying the new extension total', () => {
    // Prepare
    const job = runningJob({ gateRegion: GATE_REGION, timeoutSeconds: 60 });

    // Act
    const { state, effects } = withExtensionReport(extensionOf(job, 0, 30, at(55)), context(at(55)));

    // Assess
    expect(state.tracking.totalExtensionsGranted).toBe(30);
    expect(effects).toEqual([
      expect.objectContaining({
        type: 'Publish',
        event: expect.objectContaining({ detailType: 'JobProgressReport', detail: expect.objectContaining({ totalExtensionsGranted: 30, fenceToken: 1 }) }),
      }),
    ]);
  });

  it('says nothing for a local-authority job or when nothing was extended', () => {
    const local = withExtensionReport(extensionOf(runningJob(), 0, 30, at(55)), context(at(55)));
    const ignored = withExtensionReport(extensionOf(runningJob({ gateRegion: GATE_REGION }), 99, 30, at(55)), context(at(55)));
    expect(local.effects).toEqual([]);
    expect(ignored.effects).toEqual([]);
  });
});
