import type { GateJobAnswer } from '../contract/gate-responses.js';
import type { JobAnswer } from '../contract/manager-responses.js';

const BAR_WIDTH = 24;

export function progressBar(fraction: number | undefined): string {
  if (fraction === undefined) return `[${'·'.repeat(BAR_WIDTH)}]   ?%`;
  const clamped = Math.min(1, Math.max(0, fraction));
  const filled = Math.round(clamped * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${String(Math.round(clamped * 100)).padStart(3)}%`;
}

/** Until Vigil's deadline, from Vigil's time now (`vigilNowMs`): a machine whose clock is off shows it right. */
export function timeLeft(deadlineAt: string | undefined, vigilNowMs: number): string {
  if (deadlineAt === undefined) return 'no deadline';
  const seconds = Math.round((Date.parse(deadlineAt) - vigilNowMs) / 1000);
  if (seconds <= 0) return 'deadline passed';
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return `${h > 0 ? `${h}h` : ''}${h > 0 || m > 0 ? `${m}m` : ''}${s}s left`;
}

const settled = (state: string, fraction: number | undefined) => (state === 'completed' ? 1 : fraction);

/** A region manager's job: a header, then one bar per workflow. */
export function jobLines(job: JobAnswer, vigilNowMs: number): string[] {
  const reason = job.timeoutReason ? ` (${job.timeoutReason})` : '';
  const header = `${job.jobId}  ${job.status}${reason}  ${job.status === 'RUNNING' ? timeLeft(job.deadlineAt, vigilNowMs) : ''}`.trimEnd();
  const width = Math.max(0, ...job.workflows.map((w) => w.workflowId.length));
  return [
    header,
    ...job.workflows.map((w) => `  ${w.workflowId.padEnd(width)}  ${progressBar(settled(w.state, w.progress))}  ${w.state}`),
  ];
}

/**
 * The gate's global deadline (contract, "Global timeout"): `submittedAt + timeoutSeconds` plus the
 * largest extension total of any region; undefined from a gate whose answer does not carry them.
 */
export function globalDeadlineAt(job: GateJobAnswer): string | undefined {
  if (job.submittedAt === undefined || job.timeoutSeconds === undefined) return undefined;
  const extensionsSeconds = Math.max(0, ...Object.values(job.datacenters).map((dc) => dc.totalExtensionsGranted ?? 0));
  return new Date(Date.parse(job.submittedAt) + (job.timeoutSeconds + extensionsSeconds) * 1000).toISOString();
}

/** A region's settled share of its workflows, as its last report counted them; unknown before one. */
function regionFraction(dc: GateJobAnswer['datacenters'][string]): number | undefined {
  if (dc.status === 'completed') return 1;
  const counts = dc.lastReport?.workflows;
  return counts && counts.total > 0 ? (counts.completed + counts.failed) / counts.total : undefined;
}

/** A gate job: a header (with the time left to the global deadline while RUNNING), then one row per region. */
export function gateJobLines(job: GateJobAnswer, vigilNowMs: number): string[] {
  const reason = job.timeoutReason ? ` (${job.timeoutReason})` : '';
  const deadlineAt = globalDeadlineAt(job);
  const left = job.status === 'RUNNING' && deadlineAt !== undefined ? `  ${timeLeft(deadlineAt, vigilNowMs)}` : '';
  const regions = Object.entries(job.datacenters);
  const width = Math.max(0, ...regions.map(([region]) => region.length));
  return [
    `${job.jobId}  ${job.status}${reason}${left}`,
    ...regions.map(([region, dc]) => `  ${region.padEnd(width)}  ${progressBar(regionFraction(dc))}  ${dc.status}  last progress ${dc.lastProgressAt}`),
  ];
}
