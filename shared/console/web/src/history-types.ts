/** A job's history as `GET /jobs/{jobId}/history` answers it (times as ISO-8601 strings). */
export interface HistoryEntryJson {
  kind: string;
  at: string;
  [field: string]: unknown;
}

export interface JobHistoryJson {
  jobId: string;
  /** The region that answered, or `gate`. */
  source: string;
  status: string;
  strategy: string;
  startedAt: string;
  timeoutSeconds: number;
  stuckThresholdSeconds?: number;
  lastProgressAt?: string;
  originalDeadlineAt: string;
  effectiveDeadlineAt: string;
  timeoutReason?: string;
  finishedAt?: string;
  fenceToken?: number;
  regions?: string[];
  now: string;
  truncated: boolean;
  entries: HistoryEntryJson[];
}
