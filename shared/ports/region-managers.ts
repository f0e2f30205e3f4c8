import type { SubmitFromGateBody } from '../contract/manager-requests.js';

/** A region manager's answer to the gate's submission, shaped like its HTTP answer. */
export type RegionSubmitResult =
  | {
      outcome: 'accepted';
      /**
       * The region's first page of tokens; `nextCursor` when the rest is paged from that region's
       * `GET /jobs/{jobId}/tokens`. `deadlineAt` is the job's deadline in that region, on its clock,
       * and `startedAt` when that region started it (absent from a region older than the field).
       */
      body: {
        fenceToken: number;
        deadlineAt: string;
        startedAt?: string;
        workflows: Array<{ workflowId: string; workerId: string; token: string }>;
        nextCursor?: string;
      };
    }
  /** The manager refused the submission (4xx): it will never run the job. */
  | { outcome: 'refused'; statusCode: number; body: unknown }
  /** No answer: the region may or may not have the job; a retry with the same jobId is safe. */
  | { outcome: 'unreachable'; message: string };

/** How the gate reaches each region's manager to submit (direct invoke on AWS; in-process locally). */
export interface RegionManagers {
  readonly regions: readonly string[];
  submit(region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult>;
}
