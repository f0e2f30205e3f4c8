import { api, errorText, type ApiAnswer, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime, timeLeft } from '../format.js';
import type { JobHistoryJson } from '../history-types.js';
import { ListenerRounds, PATIENCE_MS } from '../listener-rounds.js';
import { notAnswering, troubles } from '../not-answering.js';
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
  const left = h.status === 'RUNNING' ? timeLeft(h.effectiveDeadlineAt, vigilNow()) : '';
  return `<div class="job-head">
      <h2>${esc(jobId)} <span id="job-status" class="status status-${esc(h.status)}">${esc(h.status)}</span></h2>
      <p>${esc(h.strategy)} · started ${esc(shortTime(h.startedAt))} · deadline ${esc(shortTime(h.effectiveDeadlineAt))}
      ${left ? ` · <b>${esc(left)}</b>` : ''}${h.timeoutReason && h.status === 'TIMED_OUT' ? ` · reason <b id="job-reason">${esc(h.timeoutReason)}</b>` : ''}</p>
    </div>`;
}

/** The gate's history did not come: the regions' parts still show (an outage plays out there). */
const gateProblem = (jobId: string, why: string) => `<div class="job-head"><h2>${esc(jobId)}</h2>
    <p class="problem">The gate did not answer (${esc(why)}): below, each region that knows this job, as it answers.</p></div>`;

/** What one listener says of the job: its history, and a region its part (status, fence token, workflows). */
interface Part {
  history: ApiAnswer<JobHistoryJson>;
  job?: ApiAnswer<RegionJob>;
}

/**
 * One job: its status, each region and workflow, and the timeline of every decision. Each listener is
 * asked on its own (one that hangs is named, the others' parts show).
 */
export function jobPage(where: Endpoints, source: string, jobId: string): Page {
  const path = `/jobs/${encodeURIComponent(jobId)}`;
  const rounds = new ListenerRounds<Part>(async (listener) => {
    const [history, job] = await Promise.all([api<JobHistoryJson>(listener, `${path}/history`), listener === 'gate' ? undefined : api<RegionJob>(listener, path)]);
    if (listener === source && history.ok) heardVigilTime(history.body.now);
    return { history, ...(job ? { job } : {}) };
  }, PATIENCE_MS);
  const top = () => rounds.states([source])[0] ?? { source };
  /** The job's regions: the gate's, or, while the gate names none, every region (those without the job are left out). */
  const regions = (): string[] => {
    const history = top().answer?.history;
    return source !== 'gate' ? [source] : history?.ok ? (history.body.regions ?? []) : where.regions;
  };
  const listeners = () => [...new Set([source, ...regions()])];

  const view = (): string => {
    const { answer } = top();
    const gateOk = source === 'gate' && answer?.history.ok === true;
    if (source !== 'gate' && answer && !answer.history.ok) return `<p class="problem">${esc(source)} answered ${esc(errorText(answer.history))} for job ${esc(jobId)}.</p>`;
    const shown = rounds.states(regions()).flatMap(({ source: region, answer: part }) =>
      part?.job && (gateOk || !unknownJob(part.history)) ? [{ region, job: part.job, history: part.history }] : [],
    );
    const histories = [...(gateOk && answer ? [answer.history.body] : []), ...shown.flatMap(({ history }) => (history.ok ? [history.body] : []))];
    const why = answer ? errorText(answer.history) : (troubles(top())[0] ?? 'no answer yet');
    const heading = answer?.history.ok ? head(jobId, answer.history.body) : source === 'gate' ? gateProblem(jobId, why) : `<div class="job-head"><h2>${esc(jobId)}</h2></div>`;
    return `${notAnswering(rounds.states(listeners()))}${heading}
        ${histories.length ? `<div class="timeline-box">${timelineSvg(layoutTimeline(histories, timelineWidth()))}</div>${LEGEND}` : ''}
        ${histories.some((x) => x.truncated) ? '<p class="problem">History truncated: the oldest samples are not shown.</p>' : ''}
        <div class="regions">${shown.map(({ region, job, history }) => regionCard(region, job, history)).join('')}</div>`;
  };

  return {
    title: `Job ${jobId}`,
    controls: () => '',
    async live() {
      const asked = listeners();
      await rounds.round(asked);
      // The gate's first answer may name regions not asked yet (ones this console does not forward to).
      const named = listeners().filter((listener) => !asked.includes(listener));
      if (named.length) await rounds.round(named);
      return view();
    },
  };
}
