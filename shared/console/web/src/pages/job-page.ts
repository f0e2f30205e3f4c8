import { api, errorText, type ApiAnswer, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime, timeLeft } from '../format.js';
import type { JobHistoryJson } from '../history-types.js';
import type { Page } from '../page.js';
import { layoutTimeline } from '../timeline-layout.js';
import { timelineSvg } from '../timeline-svg.js';
import { heardVigilTime, vigilNow } from '../vigil-clock.js';
import { regionCard, type RegionJob } from './region-card.js';

const LEGEND = `<p class="legend">
  <span class="mark-progress">● progress</span> <span class="mark-heartbeat">○ heartbeat</span>
  <span class="mark-gate-report">■ report to gate</span> <span class="mark-extension">→ extension</span>
  <span class="stuck-window">▭ stuck window</span> <span class="mark-timeout-report">▲ timeout report</span>
  <span class="mark-decision">◆ gate decision</span> <span class="mark-confirmed">✓ region confirmed</span>
  <span class="mark-takeover">⚑ takeover</span> <span class="mark-final">▮ final status</span></p>`;

/** The picture fills the page's width (at least 640 px); it is redrawn on each poll anyway. */
const timelineWidth = () => Math.max(640, Math.floor((document.getElementById('live')?.clientWidth ?? 960) - 4));

/** A region's answer that it holds no job of this id (as opposed to a failure, or a listener the console does not know). */
const unknownJob = (answer: ApiAnswer): boolean => answer.status === 404 && (answer.body as { error?: { code?: string } } | undefined)?.error?.code === 'job_not_found';

/** The job's status, strategy, times and, while it runs, the time left on Vigil's clock. */
function head(jobId: string, h: JobHistoryJson): string {
  heardVigilTime(h.now);
  const left = h.status === 'RUNNING' ? timeLeft(h.effectiveDeadlineAt, vigilNow()) : '';
  return `<div class="job-head">
      <h2>${esc(jobId)} <span id="job-status" class="status status-${esc(h.status)}">${esc(h.status)}</span></h2>
      <p>${esc(h.strategy)} · started ${esc(shortTime(h.startedAt))} · deadline ${esc(shortTime(h.effectiveDeadlineAt))}
      ${left ? ` · <b>${esc(left)}</b>` : ''}${h.timeoutReason && h.status === 'TIMED_OUT' ? ` · reason <b id="job-reason">${esc(h.timeoutReason)}</b>` : ''}</p>
    </div>`;
}

/** The gate's history did not come: the regions' parts still show (an outage plays out there). */
const gateProblem = (jobId: string, answer: ApiAnswer) => `<div class="job-head"><h2>${esc(jobId)}</h2>
    <p class="problem">The gate did not answer (${esc(errorText(answer))}): below, each region that knows this job, as it answers.</p></div>`;

/** One job: its status, each region and workflow, and the timeline of every decision. */
export function jobPage(where: Endpoints, source: string, jobId: string): Page {
  const path = `/jobs/${encodeURIComponent(jobId)}`;
  return {
    title: `Job ${jobId}`,
    controls: () => '',
    async live() {
      const top = await api<JobHistoryJson>(source, `${path}/history`);
      if (!top.ok && source !== 'gate') return `<p class="problem">${esc(source)} answered ${esc(errorText(top))} for job ${esc(jobId)}.</p>`;
      // Without the gate's history its regions are not known: every region is asked, those without the job left out.
      const regions = !top.ok ? where.regions : source === 'gate' ? (top.body.regions ?? []) : [source];
      const perRegion = await Promise.all(
        regions.map(async (region) => {
          const [job, history] = await Promise.all([api<RegionJob>(region, path), region === source ? top : api<JobHistoryJson>(region, `${path}/history`)]);
          return { region, job, history };
        }),
      );
      const shown = top.ok ? perRegion : perRegion.filter(({ history }) => !unknownJob(history));
      const histories = [...(source === 'gate' && top.ok ? [top.body] : []), ...shown.flatMap(({ history }) => (history.ok ? [history.body] : []))];
      return `${top.ok ? head(jobId, top.body) : gateProblem(jobId, top)}
        ${histories.length ? `<div class="timeline-box">${timelineSvg(layoutTimeline(histories, timelineWidth()))}</div>${LEGEND}` : ''}
        ${histories.some((x) => x.truncated) ? '<p class="problem">History truncated: the oldest samples are not shown.</p>' : ''}
        <div class="regions">${shown.map(({ region, job, history }) => regionCard(region, job, history)).join('')}</div>`;
    },
  };
}
