import { api } from '../api.js';
import { esc } from '../escape.js';
import { shortTime, timeLeft } from '../format.js';
import type { JobHistoryJson } from '../history-types.js';
import type { Page } from '../page.js';
import { layoutTimeline } from '../timeline-layout.js';
import { timelineSvg } from '../timeline-svg.js';

interface RegionJob {
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

function regionCard(region: string, job: RegionJob | undefined, history: JobHistoryJson | undefined): string {
  if (!job || !history) return `<div class="card region" data-region="${esc(region)}"><h3>${esc(region)}</h3><p class="problem">not answering</p></div>`;
  const workflows = (job.workflows ?? [])
    .slice(0, SHOWN_WORKFLOWS)
    .map((w) => `<tr><td>${esc(w.workflowId)}</td><td>${esc(w.workerId)}</td><td>${esc(w.state)}</td><td>${esc(shortTime(w.lastProgressAt))}</td></tr>`)
    .join('');
  const unshown = (job.workflows?.length ?? 0) - SHOWN_WORKFLOWS;
  // Past the answer's page the count is not known here: say so rather than a wrong number.
  const more = job.nextCursor !== undefined ? `<p>… and more than ${Math.max(0, unshown)} more workflows</p>` : unshown > 0 ? `<p>… and ${unshown} more workflows</p>` : '';
  return `<div class="card region" data-region="${esc(region)}">
    <h3>${esc(region)} <span class="status status-${esc(job.status)}">${esc(job.status)}</span></h3>
    <p>fence token <b>${esc(job.fenceToken)}</b> · deadline ${esc(shortTime(history.effectiveDeadlineAt))}
      (${esc(job.timeoutTracking?.totalExtensionsGranted ?? 0)} s extensions)${job.timeoutReason ? ` · reason <b>${esc(job.timeoutReason)}</b>` : ''}</p>
    <table class="workflows"><thead><tr><th>Workflow</th><th>Worker</th><th>State</th><th>Last progress</th></tr></thead><tbody>${workflows}</tbody></table>${more}
  </div>`;
}

const LEGEND = `<p class="legend">
  <span class="mark-progress">● progress</span> <span class="mark-heartbeat">○ heartbeat</span>
  <span class="mark-gate-report">■ report to gate</span> <span class="mark-extension">→ extension</span>
  <span class="stuck-window">▭ stuck window</span> <span class="mark-timeout-report">▲ timeout report</span>
  <span class="mark-decision">◆ gate decision</span> <span class="mark-confirmed">✓ region confirmed</span>
  <span class="mark-takeover">⚑ takeover</span> <span class="mark-final">▮ final status</span></p>`;

/** The picture fills the page's width (at least 640 px); it is redrawn on each poll anyway. */
const timelineWidth = () => Math.max(640, Math.floor((document.getElementById('live')?.clientWidth ?? 960) - 4));

/** One job: its status, each region and workflow, and the timeline of every decision. */
export function jobPage(source: string, jobId: string): Page {
  const path = `/jobs/${encodeURIComponent(jobId)}`;
  return {
    title: `Job ${jobId}`,
    controls: () => '',
    async live() {
      const top = await api<JobHistoryJson>(source, `${path}/history`);
      if (!top.ok) return `<p class="problem">${esc(source)} answered HTTP ${top.status} for job ${esc(jobId)}.</p>`;
      const regions = source === 'gate' ? (top.body.regions ?? []) : [source];
      const perRegion = await Promise.all(
        regions.map(async (region) => {
          const [job, history] = await Promise.all([api<RegionJob>(region, path), region === source ? top : api<JobHistoryJson>(region, `${path}/history`)]);
          return { region, job: job.ok ? job.body : undefined, history: history.ok ? history.body : undefined };
        }),
      );
      const histories = [...(source === 'gate' ? [top.body] : []), ...perRegion.flatMap((r) => (r.history ? [r.history] : []))];
      const h = top.body;
      const left = h.status === 'RUNNING' ? timeLeft(h.effectiveDeadlineAt, Date.now()) : '';
      return `<div class="job-head">
          <h2>${esc(jobId)} <span id="job-status" class="status status-${esc(h.status)}">${esc(h.status)}</span></h2>
          <p>${esc(h.strategy)} · started ${esc(shortTime(h.startedAt))} · deadline ${esc(shortTime(h.effectiveDeadlineAt))}
          ${left ? ` · <b>${esc(left)}</b>` : ''}${h.timeoutReason && h.status === 'TIMED_OUT' ? ` · reason <b id="job-reason">${esc(h.timeoutReason)}</b>` : ''}</p>
        </div>
        <div class="timeline-box">${timelineSvg(layoutTimeline(histories, timelineWidth()))}</div>${LEGEND}
        ${histories.some((x) => x.truncated) ? '<p class="problem">History truncated: the oldest samples are not shown.</p>' : ''}
        <div class="regions">${perRegion.map((r) => regionCard(r.region, r.job, r.history)).join('')}</div>`;
    },
  };
}
