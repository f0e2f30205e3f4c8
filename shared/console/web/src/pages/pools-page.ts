import { api, apiAllPages, errorText, type Endpoints } from '../api.js';
import { barChart, columns, gauge } from '../charts.js';
import { esc } from '../escape.js';
import { shortTime } from '../format.js';
import type { Page } from '../page.js';

const RECENT_KEY = 'vigil.recentPools';

export const recentPools = (): string[] => {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
  } catch {
    return [];
  }
};

const remember = (key: string) => localStorage.setItem(RECENT_KEY, JSON.stringify([key, ...recentPools().filter((p) => p !== key)].slice(0, 10)));

/** The contract has no "list pools" route: the operator names a pool; the console remembers the last ten. */
export function poolsIndexPage(where: Endpoints): Page {
  return {
    title: 'Pools',
    controls: () => `<form class="controls" id="open-pool">
        <label>Region <select id="pool-region">${where.regions.map((r) => `<option>${esc(r)}</option>`).join('')}</select></label>
        <label>Pool id <input id="pool-id" required></label>
        <button data-action="open-pool">Open</button></form>`,
    live: async () =>
      `<ul class="recent">${recentPools()
        .map((key) => `<li><a href="#/pool/${key.split('/').map(encodeURIComponent).join('/')}">${esc(key)}</a></li>`)
        .join('')}</ul>`,
    async act(action) {
      if (action !== 'open-pool') return undefined;
      const region = (document.getElementById('pool-region') as HTMLSelectElement).value;
      const poolId = (document.getElementById('pool-id') as HTMLInputElement).value.trim();
      if (poolId) location.hash = `#/pool/${encodeURIComponent(region)}/${encodeURIComponent(poolId)}`;
      return undefined;
    },
  };
}

interface HistoryRow {
  attempt: number;
  agentId: string;
  startedAt?: string;
  endedAt?: string;
  outcome?: string;
  timeout?: { type: string; commandType?: string; limitSeconds?: number; elapsedSeconds?: number };
  resolution?: string;
}

const historyTable = (history: HistoryRow[] = []) =>
  `<table class="attempts"><thead><tr><th>#</th><th>Agent</th><th>Started</th><th>Ended</th><th>Outcome</th><th>Timeout</th><th>Resolution</th></tr></thead><tbody>${history
    .map(
      (h) => `<tr><td>${esc(h.attempt)}</td><td>${esc(h.agentId)}</td><td>${esc(shortTime(h.startedAt))}</td><td>${esc(shortTime(h.endedAt))}</td>
        <td>${esc(h.outcome)}</td><td>${h.timeout ? esc(`${h.timeout.type}${h.timeout.commandType ? ` ${h.timeout.commandType}` : ''} ${h.timeout.elapsedSeconds ?? ''}/${h.timeout.limitSeconds ?? ''} s`) : ''}</td><td>${esc(h.resolution)}</td></tr>`,
    )
    .join('')}</tbody></table>`;

interface PoolJson {
  status: string;
  counts: Record<string, number>;
}
interface MetricsJson {
  agentsStarted: number;
  agentsCompleted: number;
  timeoutsOccurred: number;
  timeoutsByType: { agent?: number; command?: Record<string, number> };
  timeoutRatePercent: number;
  averageExecutionSeconds: number;
  recentTimeouts?: Array<{ at?: string; occurredAt?: string }>;
}
interface DlqEntry {
  itemId: string;
  timeoutCount: number;
  history?: HistoryRow[];
}
interface ItemJson {
  itemId: string;
  state: string;
  attempt: number;
  timeoutCount: number;
  history?: HistoryRow[];
}

/** One pool: counts by state, timeout metrics as charts, the DLQ with retry, and any item's attempts. */
export function poolPage(region: string, poolId: string): Page {
  const base = `/pools/${encodeURIComponent(poolId)}`;
  remember(`${region}/${poolId}`);
  let itemId = '';
  return {
    title: `Pool ${poolId}`,
    controls: () => `<form class="controls"><label>Item id <input id="item-id"></label><button data-action="show-item">Show attempts</button></form>`,
    async live() {
      const [pool, metrics, dlq, item] = await Promise.all([
        api<PoolJson>(region, base),
        api<MetricsJson>(region, `${base}/metrics`),
        apiAllPages<DlqEntry>(region, `${base}/dlq`, 'items'),
        itemId ? api<ItemJson>(region, `${base}/items/${encodeURIComponent(itemId)}`) : undefined,
      ]);
      if (!pool.ok) return `<p class="problem">${esc(region)}: ${esc(errorText(pool))}</p>`;
      const counts = Object.entries(pool.body.counts)
        .map(([state, n]) => `<div class="count" data-state="${esc(state)}"><b>${esc(n)}</b><span>${esc(state)}</span></div>`)
        .join('');
      const m = metrics.ok ? metrics.body : undefined;
      const byType = m
        ? [{ label: 'agent', value: m.timeoutsByType.agent ?? 0 }, ...Object.entries(m.timeoutsByType.command ?? {}).map(([type, n]) => ({ label: type, value: n }))]
        : [];
      const recent = (m?.recentTimeouts ?? []).map((t) => Date.parse(t.at ?? t.occurredAt ?? '')).filter(Number.isFinite);
      const charts = m
        ? `${gauge('timeout rate', m.timeoutRatePercent)}${barChart('timeouts by type', byType)}
           ${barChart('agents', [{ label: 'started', value: m.agentsStarted }, { label: 'completed', value: m.agentsCompleted }, { label: 'timed out', value: m.timeoutsOccurred }])}
           ${columns('recent timeouts', recent)}<p>average execution <b>${esc(Math.round(m.averageExecutionSeconds * 10) / 10)} s</b></p>`
        : `<p class="problem">metrics: ${esc(errorText(metrics))}</p>`;
      const dlqRows = dlq.ok
        ? dlq.body.entries
            .map(
              (d) => `<tr data-dlq-item="${esc(d.itemId)}"><td>${esc(d.itemId)}</td><td>${esc(d.timeoutCount)}</td>
                <td><details data-keep="${esc(`dlq ${d.itemId}`)}"><summary>${esc(d.history?.length ?? 0)} attempts</summary>${historyTable(d.history)}</details></td>
                <td><button data-action="retry" data-item="${esc(d.itemId)}">Retry</button></td></tr>`,
            )
            .join('')
        : '';
      const itemBlock = item
        ? item.ok
          ? `<h3>Item ${esc(item.body.itemId)} <span class="status">${esc(item.body.state)}</span></h3><p>attempt ${esc(item.body.attempt)} · ${esc(item.body.timeoutCount)} timeouts</p>${historyTable(item.body.history)}`
          : `<p class="problem">item ${esc(itemId)}: ${esc(errorText(item))}</p>`
        : '';
      return `<h2>${esc(poolId)} <span id="pool-status" class="status status-${esc(pool.body.status)}">${esc(pool.body.status)}</span> <small>${esc(region)}</small></h2>
        <div class="counts">${counts}</div><div class="charts">${charts}</div>
        <h3>Dead-letter queue</h3><table class="dlq"><thead><tr><th>Item</th><th>Timeouts</th><th>History</th><th></th></tr></thead><tbody>${dlqRows || '<tr><td colspan="4" class="empty">empty</td></tr>'}</tbody></table>${dlq.ok && dlq.body.more ? '<p class="more">More dead-lettered items follow: <code>vigil dlq list</code> lists them all.</p>' : ''}
        <div id="item-detail">${itemBlock}</div>`;
    },
    async act(action, target) {
      if (action === 'show-item') {
        itemId = (document.getElementById('item-id') as HTMLInputElement).value.trim();
        return undefined;
      }
      if (action !== 'retry') return undefined;
      const item = target.dataset['item'] ?? '';
      const answer = await api(region, `${base}/dlq/${encodeURIComponent(item)}/retry`, { method: 'POST', body: {} });
      return answer.ok ? { kind: 'ok', text: `Item ${item} is available again.` } : { kind: 'error', text: errorText(answer) };
    },
  };
}
