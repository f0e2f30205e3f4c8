import { describe, expect, it } from 'vitest';
import { deadlineGateOwes } from '../../shared/simulation/world/deadline-gate-owes.js';
import { gateCoordinatedJob } from '../support/fixtures.js';
import { runningGateJob, seconds, T0 } from '../domain/gate/gate-fixtures.js';

/** The gate recorded a 60 s job at T0; the region's own item started `startSeconds` later and holds `extensionSeconds` of grants. */
const gateJob = runningGateJob(60);
const regionJob = (startSeconds: number, extensionSeconds = 0) =>
  gateCoordinatedJob({ timeoutSeconds: 60, tracking: { startedAt: T0 + seconds(startSeconds), totalExtensionsGranted: extensionSeconds } });

describe('the deadline a global timeout for the deadline owes a running region (simulator invariant)', () => {
  it('a region heard accepting 30 s late is owed the deadline its workers were told: its own start + timeout + its grants', () => {
    // Act
    const owed = deadlineGateOwes(gateJob, { job: regionJob(30, 20), acceptanceHeard: true });

    // Assess: 30 + 60 + 20, not the seed's 0 + 60 + 20
    expect(owed).toBe(T0 + seconds(110));
  });

  it('a region whose acceptance the gate never heard is owed its deadline counted from submittedAt, all its grants included', () => {
    // Act
    const owed = deadlineGateOwes(gateJob, { job: regionJob(30, 20), acceptanceHeard: false });

    // Assess
    expect(owed).toBe(T0 + seconds(80));
  });

  it("a region that started after the job's own deadline is counted from submittedAt: a start that late postpones nobody's end", () => {
    // Act
    const justInTime = deadlineGateOwes(gateJob, { job: regionJob(60), acceptanceHeard: true });
    const tooLate = deadlineGateOwes(gateJob, { job: regionJob(61), acceptanceHeard: true });

    // Assess
    expect(justInTime).toBe(T0 + seconds(120));
    expect(tooLate).toBe(T0 + seconds(60));
  });

  it('after waiting its grace for reports it could not hear, the gate owes only the grants it heard of, and never more than the region holds', () => {
    // Act
    const partlyHeard = deadlineGateOwes(gateJob, { job: regionJob(30, 45), acceptanceHeard: true, extensionsHeardSeconds: 30 });
    const retiredSince = deadlineGateOwes(gateJob, { job: regionJob(30, 0), acceptanceHeard: true, extensionsHeardSeconds: 30 });

    // Assess: the late start still counts; only the unheard 15 s may be cut short
    expect(partlyHeard).toBe(T0 + seconds(120));
    expect(retiredSince).toBe(T0 + seconds(90));
  });
});
