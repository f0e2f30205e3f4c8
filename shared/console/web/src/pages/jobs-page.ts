import { apiAllPages, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime, timeLeft } from '../format.js';
import type { Page } from '../page.js';

interface Listing {
  jobId: string;
  status: string;
  strategy: string;
  createdAt: string;
  deadlineAt: string;
  timeoutReason?: string;
  regions?: string[];
}

interface Row extends Listing {
  source: string;
}

const STATUSES = ['RUNNING', 'COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'];

function value(id: string): string {
  const element = document.getElementById(id) as HTMLInputElement | HTMLSelectElement | null;
  return element?.value ?? '';
}

/** Jobs each listener shows: its newest. A filtered page may hold fewer, even none, and go on: it is followed until this many. */
const NEWEST = 100;

/** Every listener's newest jobs, merged: a gate-coordinated job shows once, as the gate sees it. */
async function rows(where: Endpoints, status: string): Promise<{ rows: Row[]; problems: string[]; more: boolean }> {
  const query = `/jobs?limit=${NEWEST}${status ? `&status=${status}` : ''}`;
  const sources = [...(where.gate ? ['gate'] : []), ...where.regions];
  const answers = await Promise.all(sources.map(async (source) => ({ source, answer: await apiAllPages<Listing>(source, query, 'jobs', NEWEST) })));
  const problems = answers.filter(({ answer }) => !answer.ok).map(({ source, answer }) => `${source}: HTTP ${answer.status}`);
  const byGate = new Set(answers.filter(({ source, answer }) => source === 'gate' && answer.ok).flatMap(({ answer }) => answer.body.entries.map((j) => j.jobId)));
  const all = answers.flatMap(({ source, answer }) =>
    answer.ok ? answer.body.entries.filter((job) => source === 'gate' || !byGate.has(job.jobId)).map((job) => ({ ...job, source })) : [],
  );
  const more = answers.some(({ answer }) => answer.ok && answer.body.more);
  return { rows: all.sort((a, b) => b.createdAt.localeCompare(a.createdAt)), problems, more };
}

export function jobsPage(where: Endpoints): Page {
  return {
    title: 'Jobs',
    controls: () => `
      <div class="controls">
        <label>Status <select id="status-filter"><option value="">any</option>${STATUSES.map((s) => `<option>${s}</option>`).join('')}</select></label>
        <label>Job id contains <input id="job-filter" placeholder="filter"></label>
      </div>`,
    async live() {
      const { rows: found, problems, more } = await rows(where, value('status-filter'));
      const text = value('job-filter').trim();
      const shown = text ? found.filter((row) => row.jobId.includes(text)) : found;
      const now = Date.now();
      const body = shown
        .map(
          (row) => `<tr class="job-row" data-job="${esc(row.jobId)}" data-status="${esc(row.status)}">
            <td><a href="#/job/${encodeURIComponent(row.source)}/${encodeURIComponent(row.jobId)}">${esc(row.jobId)}</a></td>
            <td><span class="status status-${esc(row.status)}">${esc(row.status)}</span></td>
            <td>${esc(row.strategy)}</td>
            <td>${esc(row.regions ? row.regions.join(', ') : row.source)}</td>
            <td class="time-left">${row.status === 'RUNNING' ? esc(timeLeft(row.deadlineAt, now)) : row.timeoutReason ? `reason: <b>${esc(row.timeoutReason)}</b>` : ''}</td>
            <td>${esc(shortTime(row.createdAt))}</td>
          </tr>`,
        )
        .join('');
      return `${problems.length ? `<p class="problem">Not answering: ${esc(problems.join('; '))}</p>` : ''}
        <table class="jobs"><thead><tr><th>Job</th><th>Status</th><th>Strategy</th><th>Where</th><th>Time left / reason</th><th>Submitted</th></tr></thead>
        <tbody>${body || (more ? '' : '<tr><td colspan="6" class="empty">No jobs yet.</td></tr>')}</tbody></table>${
          more ? '<p class="more">More jobs follow: filter by status or id, or page through <code>GET /jobs</code> with <code>?cursor=</code>.</p>' : ''
        }`;
    },
  };
}
