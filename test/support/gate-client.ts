import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import {
  contractResult,
  localEventsSchema,
  ok,
  rawRequest,
  type ApiResult,
  type JobStatus,
  type LocalEvents,
  type ProgressAnswer,
  type RawAnswer,
  type SubmitJobRequest,
  type VigilClient,
} from './vigil-client.js';

/**
 * The gate routes (docs/api.md "Gate"), and the local cloud's `/_local/` control routes, as a
 * typed client beside `VigilClient` (which speaks to one region manager). Answers are parsed against
 * the contract's shapes; unknown extra fields pass.
 */

const isoTime = z.iso.datetime({ offset: true });
const jobStatus = z.enum(['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT']);
export const dcStatusSchema = z.enum(['submitting', 'running', 'completed', 'failed', 'cancelled', 'timed_out']);
export type DcStatus = z.infer<typeof dcStatusSchema>;

const submittedWorkflow = z.object({ workflowId: z.string(), workerId: z.string(), token: z.string().min(1) });
export const gateSubmittedJobSchema = z.object({
  jobId: z.string(),
  strategy: z.literal('gate_coordinated'),
  datacenters: z.record(z.string(), z.object({ workflows: z.array(submittedWorkflow) })),
});
export type GateSubmittedJob = z.infer<typeof gateSubmittedJobSchema>;

export const gateJobSchema = z.object({
  jobId: z.string(),
  status: jobStatus,
  globallyTimedOut: z.boolean(),
  timeoutReason: z.string().optional(),
  withdrawnTimeoutReason: z.string().nullable().optional(),
  datacenters: z.record(
    z.string(),
    z.object({
      status: dcStatusSchema,
      lastProgressAt: isoTime,
      fenceToken: z.number().int(),
      totalExtensionsGranted: z.number().optional(),
      lastReport: z
        .object({
          at: isoTime,
          workflows: z.object({ total: z.number().int(), completed: z.number().int(), failed: z.number().int() }),
          hasRecentProgress: z.boolean(),
        })
        .optional(),
    }),
  ),
});
export type GateJobView = z.infer<typeof gateJobSchema>;

export const gateCancelAnswerSchema = z.object({ status: jobStatus });

/** `POST /_local/faults` (shared/adapters/local/network-faults.ts); omitted fields take their defaults. */
export interface FaultsRequest {
  dropRate?: number;
  redeliveryMs?: number;
  duplicateRate?: number;
  delayMs?: [number, number];
  gateDown?: boolean;
  cutOff?: string[];
}

export interface GateSubmitJobRequest {
  jobId?: string;
  timeoutSeconds: number;
  stuckThresholdSeconds?: number;
  datacenters: Record<string, { workflows: SubmitJobRequest['workflows'] }>;
}

export class GateClient {
  constructor(readonly baseUrl: string) {}

  submitJob(body: GateSubmitJobRequest): Promise<ApiResult<GateSubmittedJob>> {
    return this.call(gateSubmittedJobSchema, 'POST', '/jobs', JSON.stringify(body));
  }

  getJob(jobId: string): Promise<ApiResult<GateJobView>> {
    return this.call(gateJobSchema, 'GET', `/jobs/${encodeURIComponent(jobId)}`);
  }

  cancel(jobId: string, body: { reason?: string } = {}): Promise<ApiResult<{ status: JobStatus }>> {
    return this.call(gateCancelAnswerSchema, 'POST', `/jobs/${encodeURIComponent(jobId)}/cancel`, JSON.stringify(body));
  }

  /** Local-only: sets the network faults of the whole local cloud (`{}` clears them). */
  setFaults(faults: FaultsRequest): Promise<ApiResult<Record<string, unknown>>> {
    return this.call(z.record(z.string(), z.unknown()), 'POST', '/_local/faults', JSON.stringify(faults));
  }

  /** Local-only: every event the local cloud published. */
  events(): Promise<ApiResult<LocalEvents>> {
    return this.call(localEventsSchema, 'GET', '/_local/events');
  }

  /** Local-only: metric counts, keyed `<scope> <Name>{dimensions}`. */
  metrics(): Promise<ApiResult<Record<string, number>>> {
    return this.call(z.record(z.string(), z.number()), 'GET', '/_local/metrics');
  }

  /** Any request with a raw body (malformed JSON, unknown routes); the body parsed as JSON when it is. */
  raw(method: string, path: string, body?: string): Promise<RawAnswer> {
    return rawRequest(this.baseUrl, method, path, body);
  }

  private async call<T>(schema: z.ZodType<T>, method: string, path: string, body?: string): Promise<ApiResult<T>> {
    return contractResult(schema, method, path, await this.raw(method, path, body));
  }
}

/** The token of one workflow in a gate submission's answer; fails loudly when it is missing. */
export function tokenOf(submitted: GateSubmittedJob, region: string, workflowId: string): string {
  const token = submitted.datacenters[region]?.workflows.find((w) => w.workflowId === workflowId)?.token;
  if (token === undefined) throw new Error(`no token for ${region}/${workflowId} in ${JSON.stringify(submitted)}`);
  return token;
}

/** One workflow of a gate job in one region, and the worker that runs it. */
export class RegionWorker {
  readonly workflowId = 'wf-1';
  private step = 0;

  constructor(
    readonly client: VigilClient,
    readonly jobId: string,
    readonly workerId: string,
    readonly token: string,
  ) {}

  async progress(progress: number, step?: number): Promise<ProgressAnswer> {
    const body = { workerId: this.workerId, progress, ...(step !== undefined ? { step } : {}) };
    return ok(await this.client.reportProgress(this.jobId, this.workflowId, body, this.token));
  }

  async complete(outcome: 'completed' | 'failed' = 'completed'): Promise<void> {
    ok(await this.client.complete(this.jobId, this.workflowId, { workerId: this.workerId, outcome }, this.token));
  }

  /**
   * One report of a live worker: each advances this object's step, so it stays progress after the
   * value tops out (an unchanged value would be a mere heartbeat).
   */
  async beat(): Promise<ProgressAnswer> {
    this.step++;
    return this.progress(Math.min(0.99, this.step / 100), this.step);
  }

  async requestExtension(currentProgress: number) {
    return ok(await this.client.requestExtension(this.workerId, { reason: 'long_workflow', currentProgress }, this.token));
  }

  /**
   * A live worker on the wall clock: `beat()` every `everyMs` until stopped or told to cancel (that
   * is how a worker learns the job ended). Returns `stop`, which resolves once the loop has ended.
   */
  keepReporting(everyMs = 250): () => Promise<void> {
    let stopped = false;
    const loop = (async () => {
      while (!stopped) {
        const answer = await this.beat();
        if (answer.cancel) return;
        await sleep(everyMs);
      }
    })();
    return async () => {
      stopped = true;
      await loop;
    };
  }
}

export interface GateJobRequest<Region extends string> {
  jobId: string;
  timeoutSeconds: number;
  stuckThresholdSeconds?: number;
  regions: readonly Region[];
}

export interface GateJobHandle<Region extends string> {
  jobId: string;
  submitted: GateSubmittedJob;
  worker(region: Region): RegionWorker;
}

/**
 * Submits a job through the gate with one workflow (`wf-1`) per region, each run by its own worker
 * (`w-<region>-<jobId>`: extension budgets are per worker, so jobs do not share them).
 */
export async function submitGateJob<Region extends string>(
  gate: GateClient,
  regionClient: (region: Region) => VigilClient,
  request: GateJobRequest<Region>,
): Promise<GateJobHandle<Region>> {
  const workerOf = (region: Region) => `w-${region}-${request.jobId}`;
  const submitted = ok(
    await gate.submitJob({
      jobId: request.jobId,
      timeoutSeconds: request.timeoutSeconds,
      ...(request.stuckThresholdSeconds !== undefined ? { stuckThresholdSeconds: request.stuckThresholdSeconds } : {}),
      datacenters: Object.fromEntries(request.regions.map((region) => [region, { workflows: [{ workflowId: 'wf-1', workerId: workerOf(region) }] }])),
    }),
  );
  // One worker object per region, so its beats keep counting steps (see `beat`).
  const workers = new Map<Region, RegionWorker>();
  return {
    jobId: submitted.jobId,
    submitted,
    worker: (region) => {
      const known = workers.get(region);
      if (known) return known;
      const worker = new RegionWorker(regionClient(region), submitted.jobId, workerOf(region), tokenOf(submitted, region, 'wf-1'));
      workers.set(region, worker);
      return worker;
    },
  };
}
