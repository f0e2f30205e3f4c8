import { GATE } from '../../adapters/local/event-routes.js';
import { cancelJob } from '../../app/cancel-job.js';
import { cancelGateJob } from '../../app/gate/cancel-gate-job.js';
import { JobFinishedError, TimeoutBeingAppliedError } from '../../domain/errors.js';
import { CLIENT_RETRY } from './delivery.js';
import { GateDown, type SimNodes } from './nodes.js';
import { SIM_EPOCH, type World } from './world.js';

/** What the client of a `job-cancel` heard back: 2xx (accepted) or 409 (already ended or decided). */
export interface CancelAnswer {
  jobId: string;
  /** The region that answered; absent for the gate. */
  region?: string;
  atMs: number;
  accepted: boolean;
  /** The status the answer named: `CANCELLED` for an accepted one, the finished status (or the refusal's text) for a 409. */
  status: string;
}

/** The clients' cancels and their answers, for the invariants (`cancel-invariants.ts`). */
export class JobCancels {
  readonly answers: CancelAnswer[] = [];
  private readonly acceptedAt = new Map<string, { atMs: number; region?: string }>();

  answered(answer: CancelAnswer): void {
    this.answers.push(answer);
    if (answer.accepted && !this.acceptedAt.has(answer.jobId)) {
      this.acceptedAt.set(answer.jobId, { atMs: answer.atMs, ...(answer.region !== undefined ? { region: answer.region } : {}) });
    }
  }

  /** When the job's cancel was first answered 2xx, if it was. */
  accepted(jobId: string): number | undefined {
    return this.acceptedAt.get(jobId)?.atMs;
  }

  /** When and where a region first answered 2xx to a cancel of the job made there, if one did. */
  acceptedAtRegion(jobId: string): { atMs: number; region: string } | undefined {
    const accepted = this.acceptedAt.get(jobId);
    return accepted?.region === undefined ? undefined : { atMs: accepted.atMs, region: accepted.region };
  }
}

/**
 * The plan's `job-cancel`s: at its time the job's client calls `POST /jobs/{id}/cancel` on the gate
 * (a gate-coordinated job, unless the plan names one of its regions) or on the job's region, and retries a failed call as any
 * client does (`CLIENT_RETRY`: the gate down, a crash, a 404 for a job not submitted yet). A 409 is an
 * answer, not a failure: the job had already ended, or the gate had decided its end.
 */
export function scheduleJobCancels(world: World, nodes: SimNodes, cancels: JobCancels): void {
  for (const fault of world.plan.faults) {
    if (fault.kind !== 'job-cancel') continue;
    const spec = world.plan.jobs.find((job) => job.jobId === fault.jobId);
    if (!spec) continue;
    const regionName = spec.viaGate ? fault.atRegion : spec.regions[0];
    const region = regionName === undefined ? undefined : nodes.regions.get(regionName);
    if (regionName !== undefined && !region) continue;
    const node = region?.name ?? GATE;
    world.at(SIM_EPOCH + fault.atMs, `client cancel ${fault.jobId}`, async () => {
      world.log(`client cancels ${fault.jobId} ${region ? `in ${region.name}` : 'through the gate'}`);
      await world.invoke(node, 'cancel-job', async () => {
        world.calls.httpRequests.client++;
        try {
          const answer = await world.invocations.answerOf(
            node,
            region
              ? cancelJob(region.deps, fault.jobId, 'client')
              : world.gateDown()
                ? Promise.reject(new GateDown())
                : cancelGateJob(nodes.gate.deps, fault.jobId, 'client'),
          );
          world.log(`client's cancel of ${fault.jobId} answered 200 ${answer.status}`);
          cancels.answered({ jobId: fault.jobId, ...(region ? { region: region.name } : {}), atMs: world.now, accepted: true, status: answer.status });
        } catch (error) {
          if (!(error instanceof JobFinishedError || error instanceof TimeoutBeingAppliedError)) throw error;
          // A 409 answers the call; the crash fault may still have killed the invocation that gave it.
          world.invocations.refuseIfDead(node);
          world.log(`client's cancel of ${fault.jobId} answered 409: ${error.message}`);
          cancels.answered({ jobId: fault.jobId, ...(region ? { region: region.name } : {}), atMs: world.now, accepted: false, status: error instanceof TimeoutBeingAppliedError ? 'timeout being applied' : error.message });
        }
      }, CLIENT_RETRY);
    });
  }
}
