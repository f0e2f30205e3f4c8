import type { Decision } from '../../domain/effects.js';
import { JobNotFoundError } from '../../domain/errors.js';
import { allRegionsFinal, type GateJob } from '../../domain/gate/gate-job.js';
import type { GateStore } from '../../ports/gate-store.js';
import { decideAndSave, type VersionedStore } from '../decide-and-save.js';
import { gateViews, type StateViews } from '../history/record-history.js';
import type { GateDeps } from './gate-deps.js';

export const gateStateStore = (gates: GateStore, views?: StateViews<GateJob>): VersionedStore<GateJob> => ({
  load: (jobId) => gates.get(jobId),
  save: (job, expectedVersion) => gates.save(job, expectedVersion),
  isFinished: allRegionsFinal,
  retryWakeUp: (job, dueAt) => ({ scope: 'gate', jobId: job.jobId, fenceToken: job.timeoutFenceToken, dueAt }),
  ...(views ? { recordHistory: views.record, rewriteFinishedView: views.rewriteFinished } : {}),
});

/** `decideAndSave` for the gate's view of one job. */
export const decideGateJob = (deps: GateDeps, jobId: string, decide: (job: GateJob) => Decision<GateJob>, alreadyLoaded?: GateJob) =>
  decideAndSave(gateStateStore(deps.gates, deps.history && gateViews(deps.history, deps.telemetry)), deps, jobId, () => deps.clock.now(), decide, () => new JobNotFoundError(jobId), alreadyLoaded);
