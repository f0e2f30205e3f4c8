import type { Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime, timeLeft } from '../format.js';
import { ListenerRounds, PATIENCE_MS } from '../listener-rounds.js';
import { notAnswering } from '../not-answering.js';
import type { Page } from '../page.js';
import { readVigilClock, vigilNow } from '../vigil-clock.js';
import { jobById, mergedRows, newestJobs, type Listing, type Row } from './job-rows.js';

const STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

/** A job id as the contract allows it: only such a text is looked up by id. */
const JOB_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function value(id: string): string {
  const element = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
  return element?.value ?? '';
}

const rowHtml = (row: Row, now: number) => `<tr class="job-row" data-job="${esc(row.jobId)}" data-status="${esc(row.status)}">
    <td><a href="#/job/${encodeURIComponent(row.source)}/${encodeURIComponent(row.jobId)}">${esc(row.jobId)}</a></td>
    <td><span class="status status-${esc(row.status)}">${esc(row.status)}</span></td>
    <td>${esc(row.strategy)}</td>
    <td>${esc(row.regions ? row.regions.join(', ') : row.source)}</td>
    <td class="time-left">${row.status === 'RUNNING' && row.deadlineAt ? esc(timeLeft(row.deadlineAt, now)) : row.timeoutReason ? `reason: <b>${esc(row.timeoutReason)}</b>` : ''}</td>
    <td>${esc(shortTime(row.createdAt))}</td>
  </tr>`;

/**
 * Every listener's newest jobs, each listener asked on its own (one that hangs is named, the others
 * stay current). The id and status filters apply at once to the rows read; a whole job id that is not
 * among them while more jobs follow is looked up on every listener (`GET /jobs/{jobId}`).
 */
export function jobsPage(where: Endpoints): Page {
  const sources = [...(where.gate ? ['gate'] : []), ...where.regions];
  let listing = { status: '', rounds: new ListenerRounds(newestJobs(''), PATIENCE_MS) };
  let lookup: { jobId: string; rounds: ListenerRounds<Listing[]> } | undefined;

  const listed = () => listing.rounds.states(sources);
  const loadedRows = () => mergedRows(listed().flatMap(({ source, answer }) => (answer?.ok ? [{ source, jobs: answer.body.entries }] : [])));
  const more = () => listed().some(({ answer }) => answer?.ok && answer.body.more);
  const idToLookUp = (text: string) => (JOB_ID.test(text) && more() && !loadedRows().some((row) => row.jobId === text) ? text : undefined);
  const lookedUp = (text: string) => (lookup?.jobId === text ? lookup.rounds.states(sources) : []);

  /** The rows to show for the filters: those read that match, and the job the id names when it was looked up. */
  const rowsFor = (text: string, status: string): { rows: Row[]; notFound: boolean } => {
    const loaded = loadedRows();
    const answers = lookedUp(text);
    const found = loaded.some((row) => row.jobId === text) ? [] : mergedRows(answers.map(({ source, answer }) => ({ source, jobs: answer ?? [] })));
    const rows = [...loaded, ...found].filter((row) => (!status || row.status === status) && row.jobId.includes(text));
    return { rows, notFound: answers.length > 0 && answers.every(({ answer }) => answer !== undefined) && found.length === 0 };
  };

  const view = () => {
    const text = value('job-filter').trim();
    const { rows, notFound } = rowsFor(text, value('status-filter'));
    const now = vigilNow();
    const empty = notFound ? `No listener that answered holds a job ${esc(text)}.` : more() ? '' : 'No jobs yet.';
    return `${notAnswering(listed(), (answer) => (answer.ok ? undefined : `HTTP ${answer.status}`))}
      <table class="jobs"><thead><tr><th>Job</th><th>Status</th><th>Strategy</th><th>Where</th><th>Time left / reason</th><th>Submitted</th></tr></thead>
      <tbody>${rows.map((row) => rowHtml(row, now)).join('') || (empty ? `<tr><td colspan="6" class="empty">${empty}</td></tr>` : '')}</tbody></table>${
        more()
          ? '<p class="more">More jobs follow: filter by status or id (a whole job id is looked up on every listener), or page through <code>GET /jobs</code> with <code>?cursor=</code>.</p>'
          : ''
      }`;
  };

  return {
    title: 'Jobs',
    controls: () => `
      <div class="controls">
        <label>Status <select id="status-filter"><option value="">any</option>${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select></label>
        <label>Job id contains <input id="job-filter" placeholder="filter"></label>
      </div>`,
    async live() {
      const status = value('status-filter');
      if (status !== listing.status) listing = { status, rounds: new ListenerRounds(newestJobs(status), PATIENCE_MS) };
      await Promise.all([listing.rounds.round(sources), readVigilClock(where)]);
      const jobId = idToLookUp(value('job-filter').trim());
      if (jobId !== undefined) {
        if (lookup?.jobId !== jobId) lookup = { jobId, rounds: new ListenerRounds(jobById(jobId), PATIENCE_MS) };
        await lookup.rounds.round(sources);
      }
      return view();
    },
    view,
  };
}
