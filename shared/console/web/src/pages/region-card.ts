import { errorText, type ApiAnswer } from '../api.js';
import { esc } from '../escape.js';
import { shortTime } from '../format.js';
import type { JobHistoryJson } from '../history-types.js';

export interface RegionJob {
  status: string;
  fenceToken?: number;
  timeoutReason?: string;
  timeoutTracking?: { effectiveDeadlineAt: string; totalExtensionsGranted: number };
  workflows?: Array<{ workflowId: string; workerId: string; state: string; lastProgressAt?: string }>;
  /** Set when the job has more workflows than this answer lists (they come a page at a time). */
  nextCursor?: string;
}

/** Workflows listed on the card; the answer holds up to a page of them (1,000). */
const SHOWN_WORKFLOWS = 200;

/**
 * One region's part of a job: its status, fence token, deadline and workflows; or, when it did not
 * answer with them, why (the console may not forward to that region, or it did not answer in time).
 */
export function regionCard(region: string, job: ApiAnswer<RegionJob>, history: ApiAnswer<JobHistoryJson>): string {
  if (!job.ok || !history.ok) {
    return `<div class="card region" data-region="${esc(region)}"><h3>${esc(region)}</h3><p class="problem">${esc(errorText(job.ok ? history : job))}</p></div>`;
  }
  const { workflows: all = [], nextCursor } = job.body;
  const workflows = all
    .slice(0, SHOWN_WORKFLOWS)
    .map((w) => `<tr><td>${esc(w.workflowId)}</td><td>${esc(w.workerId)}</td><td>${esc(w.state)}</td><td>${esc(shortTime(w.lastProgressAt))}</td></tr>`)
    .join('');
  const unshown = all.length - SHOWN_WORKFLOWS;
  // Past the answer's page the count is not known here: say so rather than a wrong number.
  const more = nextCursor !== undefined ? `<p>… and more than ${Math.max(0, unshown)} more workflows</p>` : unshown > 0 ? `<p>… and ${unshown} more workflows</p>` : '';
  const { status, fenceToken, timeoutTracking, timeoutReason } = job.body;
  return `<div class="card region" data-region="${esc(region)}">
    <h3>${esc(region)} <span class="status status-${esc(status)}">${esc(status)}</span></h3>
    <p>fence token <b>${esc(fenceToken)}</b> · deadline ${esc(shortTime(history.body.effectiveDeadlineAt))}
      (${esc(timeoutTracking?.totalExtensionsGranted ?? 0)} s extensions)${timeoutReason ? ` · reason <b>${esc(timeoutReason)}</b>` : ''}</p>
    <table class="workflows"><thead><tr><th>Workflow</th><th>Worker</th><th>State</th><th>Last progress</th></tr></thead><tbody>${workflows}</tbody></table>${more}
  </div>`;
}
