import { api, apiAllPages, errorText, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime } from '../format.js';
import type { Page } from '../page.js';

interface Escalation {
  escalationId: string;
  poolId: string;
  itemId: string;
  question: string;
  options: string[];
  askedAt: string;
  status: string;
}

/** What each option needs from the person besides the choice (the API validates it). */
function extraFields(id: string): string {
  return `<div class="answer-fields">
    <label>timeout s <input type="number" min="1" data-field="timeoutSeconds" data-for="${esc(id)}" value="1800"></label>
    <label>clarification <input data-field="clarification" data-for="${esc(id)}"></label>
    <label>subtasks (JSON) <input data-field="subtasks" data-for="${esc(id)}" placeholder='[{"itemId":"a","input":{}}]'></label></div>`;
}

function field(root: HTMLElement, id: string, name: string): string {
  const input = root.querySelector<HTMLInputElement>(`input[data-field="${name}"][data-for="${CSS.escape(id)}"]`);
  return input?.value.trim() ?? '';
}

/** The body for an option: only what that option uses, so the API's own validation speaks for the rest. */
function answerBody(root: HTMLElement, id: string, option: string): { body?: unknown; problem?: string } {
  if (option === 'increase_timeout') return { body: { option, timeoutSeconds: Number(field(root, id, 'timeoutSeconds')) } };
  if (option === 'clarify') return { body: { option, clarification: field(root, id, 'clarification') } };
  if (option === 'split') {
    try {
      return { body: { option, subtasks: JSON.parse(field(root, id, 'subtasks') || '[]') as unknown } };
    } catch {
      return { problem: 'subtasks must be JSON: a list of {"itemId": "…", "input": {…}}' };
    }
  }
  return { body: { option } };
}

/** Seed 002's questions for a human, from every region; answering applies the option at once. */
export function escalationsPage(where: Endpoints): Page {
  const regionOf = new Map<string, string>();
  return {
    title: 'Escalations',
    controls: () => '',
    async live() {
      const answers = await Promise.all(where.regions.map(async (region) => ({ region, answer: await apiAllPages<Escalation>(region, '/escalations', 'escalations') })));
      const problems = answers.filter((a) => !a.answer.ok).map((a) => `${a.region}: ${errorText(a.answer)}`);
      const pending = answers.flatMap(({ region, answer }) =>
        answer.ok ? answer.body.entries.filter((e) => e.status === 'pending').map((e) => ({ ...e, region })) : [],
      );
      for (const e of pending) regionOf.set(e.escalationId, e.region);
      const cards = pending
        .map(
          (e) => `<div class="card escalation" data-escalation="${esc(e.escalationId)}">
            <h3>${esc(e.poolId)} / ${esc(e.itemId)} <small>${esc(e.region)} · asked ${esc(shortTime(e.askedAt))}</small></h3>
            <p class="question">${esc(e.question)}</p>${extraFields(e.escalationId)}
            <div class="options">${e.options
              .map((option) => `<button data-action="answer" data-escalation="${esc(e.escalationId)}" data-option="${esc(option)}">${esc(option)}</button>`)
              .join('')}</div></div>`,
        )
        .join('');
      return `${problems.length ? `<p class="problem">${esc(problems.join('; '))}</p>` : ''}
        <div id="pending-escalations">${cards || '<p class="empty">No pending questions.</p>'}</div>`;
    },
    async act(action, target, root) {
      if (action !== 'answer') return undefined;
      const id = target.dataset['escalation'] ?? '';
      const option = target.dataset['option'] ?? '';
      const { body, problem } = answerBody(root, id, option);
      if (problem) return { kind: 'error', text: problem };
      const answer = await api(regionOf.get(id) ?? where.regions[0] ?? '', `/escalations/${encodeURIComponent(id)}/answer`, { method: 'POST', body });
      return answer.ok ? { kind: 'ok', text: `Answered ${id}: ${option}.` } : { kind: 'error', text: errorText(answer) };
    },
  };
}
