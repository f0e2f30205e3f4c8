import { api, apiAllPages, errorText, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import { shortTime } from '../format.js';
import { ListenerRounds, PATIENCE_MS } from '../listener-rounds.js';
import { notAnswering } from '../not-answering.js';
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

/**
 * An escalation as the page knows it: its id is `pool~item~count`, so two regions with the same pool
 * and item ids have the same one. Region and id together say which question a card and its answer are.
 */
interface Asked {
  region: string;
  id: string;
}

/**
 * What each option needs from the person besides the choice (the API validates it). The fields keep
 * what was typed when the list is redrawn (another question came in, one was answered elsewhere).
 */
function extraFields({ region, id }: Asked): string {
  const of = (name: string) => `data-field="${name}" data-region="${esc(region)}" data-for="${esc(id)}" data-keep="${esc(`${region} ${id} ${name}`)}"`;
  return `<div class="answer-fields">
    <label>timeout s <input type="number" min="1" ${of('timeoutSeconds')} value="1800"></label>
    <label>clarification <input ${of('clarification')}></label>
    <label>subtasks (JSON) <input ${of('subtasks')} placeholder='[{"itemId":"a","input":{}}]'></label></div>`;
}

function field(root: HTMLElement, { region, id }: Asked, name: string): string {
  const input = root.querySelector<HTMLInputElement>(`input[data-field="${name}"][data-region="${CSS.escape(region)}"][data-for="${CSS.escape(id)}"]`);
  return input?.value.trim() ?? '';
}

/** The body for an option: only what that option uses, so the API's own validation speaks for the rest. */
function answerBody(root: HTMLElement, asked: Asked, option: string): { body?: unknown; problem?: string } {
  if (option === 'increase_timeout') return { body: { option, timeoutSeconds: Number(field(root, asked, 'timeoutSeconds')) } };
  if (option === 'clarify') return { body: { option, clarification: field(root, asked, 'clarification') } };
  if (option === 'split') {
    try {
      return { body: { option, subtasks: JSON.parse(field(root, asked, 'subtasks') || '[]') as unknown } };
    } catch {
      return { problem: 'subtasks must be JSON: a list of {"itemId": "…", "input": {…}}' };
    }
  }
  return { body: { option } };
}

/**
 * Seed 002's questions for a human, from every region, each region asked on its own (one that hangs
 * is named, the others' questions show); answering applies the option at once.
 */
export function escalationsPage(where: Endpoints): Page {
  const rounds = new ListenerRounds((region) => apiAllPages<Escalation>(region, '/escalations', 'escalations'), PATIENCE_MS);
  return {
    title: 'Escalations',
    controls: () => '',
    async live() {
      await rounds.round(where.regions);
      const states = rounds.states(where.regions);
      const listed = states.flatMap(({ source, answer }) => (answer?.ok ? [{ region: source, ...answer.body }] : []));
      const pending = listed.flatMap(({ region, entries }) => entries.filter((e) => e.status === 'pending').map((e) => ({ ...e, region })));
      // Listed by id, answered ones too: past the pages read, a pending question may still follow.
      const cutShort = listed.filter(({ more }) => more).map(({ region }) => region);
      const cards = pending
        .map(
          (e) => `<div class="card escalation" data-region="${esc(e.region)}" data-escalation="${esc(e.escalationId)}">
            <h3>${esc(e.poolId)} / ${esc(e.itemId)} <small>${esc(e.region)} · asked ${esc(shortTime(e.askedAt))}</small></h3>
            <p class="question">${esc(e.question)}</p>${extraFields({ region: e.region, id: e.escalationId })}
            <div class="options">${e.options
              .map(
                (option) =>
                  `<button data-action="answer" data-region="${esc(e.region)}" data-escalation="${esc(e.escalationId)}" data-option="${esc(option)}">${esc(option)}</button>`,
              )
              .join('')}</div></div>`,
        )
        .join('');
      const more = cutShort.length
        ? `<p class="more">More escalations follow in ${esc(cutShort.join(', '))} than this page reads: <code>vigil escalations list</code> lists them all.</p>`
        : '';
      const none = cutShort.length ? '' : `<p class="empty">No pending questions${listed.length < where.regions.length ? ' in the regions that answered' : ''}.</p>`;
      return `${notAnswering(states, (answer) => (answer.ok ? undefined : errorText(answer)))}
        <div id="pending-escalations">${cards || none}${more}</div>`;
    },
    async act(action, target, root) {
      if (action !== 'answer') return undefined;
      const asked = { region: target.dataset['region'] ?? '', id: target.dataset['escalation'] ?? '' };
      const { id } = asked;
      const option = target.dataset['option'] ?? '';
      const { body, problem } = answerBody(root, asked, option);
      if (problem) return { kind: 'error', text: problem };
      const answer = await api(asked.region, `/escalations/${encodeURIComponent(id)}/answer`, { method: 'POST', body });
      return answer.ok ? { kind: 'ok', text: `Answered ${id}: ${option}.` } : { kind: 'error', text: errorText(answer) };
    },
  };
}
