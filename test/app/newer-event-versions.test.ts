import { describe, expect, it } from 'vitest';
import { parseGateDecision } from '../../functions/events/on-gate-decision.js';
import { parseReport } from '../../functions/gate-events/on-manager-report.js';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { JobGlobalCancel } from '../../shared/events/job-global-cancel.js';
import { JobGlobalTimeout } from '../../shared/events/job-global-timeout.js';
import { JobFinalStatus } from '../../shared/events/job-final-status.js';
import { toIso } from '../../shared/domain/time.js';
import { at, GATE_REGION, REGION } from '../support/fixtures.js';
import { useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }], gateRegion: GATE_REGION };

/** A detail as a newer Vigil would send it: a higher version, and a field this reader has never heard of. */
const fromNewerVigil = (event: { detailType: string; detail: Record<string, unknown> }) => ({
  'detail-type': event.detailType,
  detail: { ...event.detail, version: Number(event.detail['version']) + 1, addedLater: { any: 'thing' } },
});

// Noticed last session: a detail of a newer version was refused outright. Regions are deployed one
// after another, so an upgraded gate's decisions never stopped a job in a region not yet upgraded.
describe('a region reads decisions from a newer gate (dynalite)', () => {
  const m = useTestManager();

  it('a newer JobGlobalCancel still cancels the job', async () => {
    // Prepare
    await submitJob(m.deps, body);
    const cancel = fromNewerVigil(JobGlobalCancel.build({ jobId: 'job-1', region: REGION, reason: 'cancelled at the gate' }));
    // Act
    await onGateDecision(m.deps, parseGateDecision(cancel));
    // Assess
    expect((await m.getJob('job-1')).status).toBe('CANCELLED');
  });

  it('a newer JobGlobalTimeout still times the job out', async () => {
    // Prepare
    await submitJob(m.deps, body);
    m.clock.set(at(30));
    const timeout = fromNewerVigil(JobGlobalTimeout.build({ jobId: 'job-1', region: REGION, reason: 'global deadline', timedOutAt: toIso(at(30)), fenceToken: 1 }));
    // Act
    await onGateDecision(m.deps, parseGateDecision(timeout));
    // Assess
    expect((await m.getJob('job-1')).status).toBe('TIMED_OUT');
  });
});

describe('event versions', () => {
  it('a newer detail is read as this version, without the fields added later', () => {
    const event = JobFinalStatus.build({ jobId: 'job-1', region: REGION, gateRegion: GATE_REGION, managerId: 'm-1', status: 'COMPLETED', timestamp: toIso(at(5)), fenceToken: 1 });
    const parsed = parseReport(fromNewerVigil(event));
    expect(parsed.detail).not.toHaveProperty('addedLater');
    expect(parsed.detail).toMatchObject({ jobId: 'job-1', status: 'COMPLETED', fenceToken: 1 });
  });

  it('a version that is not a whole number from 1 is refused, naming the field', () => {
    const event = JobGlobalCancel.build({ jobId: 'job-1', region: REGION });
    expect(() => JobGlobalCancel.parse({ ...event.detail, version: 0 })).toThrow(/version must be a whole number from 1/);
    expect(() => JobGlobalCancel.parse({ ...event.detail, version: '2' })).toThrow(/version/);
  });
});
