import { describe, expect, it } from 'vitest';
import type { DcStatus, GateJob } from '../../../shared/domain/gate/gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { AP, EU, US, runningGateJob } from './gate-fixtures.js';

const withStatuses = (statuses: [DcStatus, DcStatus, DcStatus], extra: Partial<GateJob> = {}): GateJob => ({
  ...runningGateJob(),
  dcStatus: { [US]: statuses[0], [EU]: statuses[1], [AP]: statuses[2] },
  ...extra,
});

describe('the aggregate status across regions', () => {
  it.each<[[DcStatus, DcStatus, DcStatus], string]>([
    [['running', 'completed', 'completed'], 'RUNNING'],
    [['submitting', 'completed', 'completed'], 'RUNNING'],
    [['completed', 'completed', 'completed'], 'COMPLETED'],
    [['completed', 'cancelled', 'completed'], 'CANCELLED'],
    [['completed', 'failed', 'cancelled'], 'FAILED'],
    [['timed_out', 'failed', 'cancelled'], 'TIMED_OUT'],
  ])('regions %j → %s', (statuses, expected) => {
    expect(gateJobStatus(withStatuses(statuses))).toBe(expected);
  });

  it('the gate\'s own decision wins over the regions once a region confirms it: a global timeout, then a cancel', () => {
    expect(gateJobStatus(withStatuses(['running', 'timed_out', 'completed'], { globallyTimedOut: true }))).toBe('TIMED_OUT');
    // A timeout report may predate the region's completion: only a TIMED_OUT final status confirms.
    expect(gateJobStatus(withStatuses(['running', 'running', 'completed'], { globallyTimedOut: true, dcTimeoutReported: { [US]: 'stuck' } }))).toBe('RUNNING');
    // Declared at the deadline, not yet confirmed: a region that completed unheard may still answer COMPLETED.
    expect(gateJobStatus(withStatuses(['running', 'running', 'completed'], { globallyTimedOut: true }))).toBe('RUNNING');
    expect(gateJobStatus(withStatuses(['completed', 'completed', 'completed'], { globallyTimedOut: true }))).toBe('COMPLETED');
    expect(gateJobStatus(withStatuses(['running', 'timed_out', 'completed'], { cancelRequested: {} }))).toBe('CANCELLED');
  });
});
