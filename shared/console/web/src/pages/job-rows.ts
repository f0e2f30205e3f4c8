import { api, apiAllPages, type ApiAnswer } from '../api.js';

/** A job as the jobs list shows it: a `GET /jobs` row, or one found by its id. */
export interface Listing {
  jobId: string;
  status: string;
  strategy: string;
  createdAt: string;
  /** Absent from the gate's `GET /jobs/{jobId}`. */
  deadlineAt?: string;
  timeoutReason?: string;
  regions?: string[];
}

export interface Row extends Listing {
  source: string;
}

export type ListingAnswer = ApiAnswer<{ entries: Listing[]; more: boolean }>;

/** Jobs each listener shows: its newest. A filtered page may hold fewer, even none, and go on: it is followed until this many. */
const NEWEST = 100;

/** Asks one listener for its newest jobs (of `status`, when one is chosen). */
export const newestJobs =
  (status: string) =>
  (source: string): Promise<ListingAnswer> =>
    apiAllPages<Listing>(source, `/jobs?limit=${NEWEST}${status ? `&status=${status}` : ''}`, 'jobs', NEWEST);

/** What `GET /jobs/{jobId}` answers: a region's job view, or the gate's (its regions under `datacenters`). */
interface JobAnswer {
  jobId: string;
  status: string;
  strategy?: string;
  deadlineAt?: string;
  timeoutReason?: string;
  timeoutTracking?: { startedAt?: string };
  datacenters?: Record<string, unknown>;
}

/** Asks one listener for the job of this exact id: a listing of it, or none. */
export const jobById =
  (jobId: string) =>
  async (source: string): Promise<Listing[]> => {
    const answer = await api<JobAnswer>(source, `/jobs/${encodeURIComponent(jobId)}`);
    if (!answer.ok) return [];
    const job = answer.body;
    return [
      {
        jobId: job.jobId,
        status: job.status,
        strategy: job.strategy ?? 'gate_coordinated',
        createdAt: job.timeoutTracking?.startedAt ?? '',
        ...(job.deadlineAt ? { deadlineAt: job.deadlineAt } : {}),
        ...(job.timeoutReason ? { timeoutReason: job.timeoutReason } : {}),
        ...(job.datacenters ? { regions: Object.keys(job.datacenters) } : {}),
      },
    ];
  };

/** Every listener's jobs, merged and newest first: a gate-coordinated job shows once, as the gate sees it. */
export function mergedRows(listed: ReadonlyArray<{ source: string; jobs: Listing[] }>): Row[] {
  const byGate = new Set(listed.filter(({ source }) => source === 'gate').flatMap(({ jobs }) => jobs.map((job) => job.jobId)));
  const rows = listed.flatMap(({ source, jobs }) => jobs.filter((job) => source === 'gate' || !byGate.has(job.jobId)).map((job) => ({ ...job, source })));
  return rows.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}
