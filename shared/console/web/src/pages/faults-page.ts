import { errorText, type ApiAnswer, type Endpoints } from '../api.js';
import { esc } from '../escape.js';
import type { Page } from '../page.js';

interface Faults {
  dropRate: number;
  redeliveryMs: number;
  duplicateRate: number;
  delayMs: [number, number];
  gateDown: boolean;
  cutOff: string[];
}

async function faultsCall(init?: RequestInit): Promise<ApiAnswer<Faults>> {
  const response = await fetch('/_local/faults', init);
  return { ok: response.ok, status: response.status, body: (await response.json()) as Faults };
}

const num = (id: string) => Number((document.getElementById(id) as HTMLInputElement).value);

/** The local cloud's network faults (`/_local/faults`): take the gate down or cut a region off, and watch the timeline. */
export function faultsPage(where: Endpoints): Page {
  return {
    title: 'Faults',
    controls: () =>
      where.faults
        ? `<form class="controls faults">
            <label><input type="checkbox" id="gate-down"> gate down</label>
            ${where.regions.map((r) => `<label><input type="checkbox" class="cut-off" value="${esc(r)}"> cut off ${esc(r)}</label>`).join('')}
            <label>drop rate <input id="drop-rate" type="number" min="0" max="1" step="0.05" value="0"></label>
            <label>duplicate rate <input id="duplicate-rate" type="number" min="0" max="1" step="0.05" value="0"></label>
            <label>delay ms <input id="delay-min" type="number" min="0" value="0"> – <input id="delay-max" type="number" min="0" value="0"></label>
            <button data-action="apply-faults">Apply</button> <button data-action="clear-faults">Clear all</button></form>`
        : '<p>Fault injection exists only in the local cloud (<code>npm start</code>).</p>',
    async live() {
      if (!where.faults) return '';
      const current = await faultsCall();
      return `<h3>Now in effect</h3><pre id="faults-now">${esc(JSON.stringify(current.body, null, 2))}</pre>`;
    },
    async act(action) {
      if (action !== 'apply-faults' && action !== 'clear-faults') return undefined;
      const body =
        action === 'clear-faults'
          ? {}
          : {
              gateDown: (document.getElementById('gate-down') as HTMLInputElement).checked,
              cutOff: [...document.querySelectorAll<HTMLInputElement>('input.cut-off:checked')].map((box) => box.value),
              dropRate: num('drop-rate'),
              duplicateRate: num('duplicate-rate'),
              delayMs: [num('delay-min'), num('delay-max')],
            };
      const answer = await faultsCall({ method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
      return answer.ok ? { kind: 'ok', text: 'Faults applied.' } : { kind: 'error', text: errorText(answer) };
    },
  };
}
