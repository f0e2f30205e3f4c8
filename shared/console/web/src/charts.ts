import { esc } from './escape.js';

/** A small horizontal bar chart: one bar per label, scaled to the largest value. */
export function barChart(title: string, bars: Array<{ label: string; value: number }>): string {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rows = bars
    .map((bar, i) => {
      const y = 20 + i * 18;
      const w = Math.round((bar.value / max) * 160);
      return `<text x="0" y="${y + 10}">${esc(bar.label)}</text><rect x="90" y="${y}" width="${w}" height="12"/><text x="${96 + w}" y="${y + 10}">${esc(bar.value)}</text>`;
    })
    .join('');
  return `<svg class="chart" data-chart="${esc(title)}" width="300" height="${28 + bars.length * 18}"><text x="0" y="12" class="chart-title">${esc(title)}</text>${rows}</svg>`;
}

/** A gauge for a percentage (seed 003's timeout rate). */
export function gauge(title: string, percent: number): string {
  const w = Math.round(Math.min(100, Math.max(0, percent)) * 2.6);
  return `<svg class="chart" data-chart="${esc(title)}" width="300" height="48"><text x="0" y="12" class="chart-title">${esc(title)}</text>
    <rect x="0" y="20" width="260" height="14" class="gauge-back"/><rect x="0" y="20" width="${w}" height="14"/><text x="266" y="32">${esc(Math.round(percent * 10) / 10)}%</text></svg>`;
}

/** Events over time as columns (recent timeouts per time bucket). */
export function columns(title: string, times: number[], buckets = 20): string {
  if (times.length === 0) return `<svg class="chart" data-chart="${esc(title)}" width="300" height="48"><text x="0" y="12" class="chart-title">${esc(title)}</text><text x="0" y="36">none</text></svg>`;
  const start = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - start);
  const counts = new Array<number>(buckets).fill(0);
  for (const t of times) counts[Math.min(buckets - 1, Math.floor(((t - start) / span) * buckets))]! += 1;
  const max = Math.max(...counts);
  const cols = counts.map((c, i) => `<rect x="${i * 13}" y="${70 - (c / max) * 48}" width="10" height="${(c / max) * 48}"/>`).join('');
  return `<svg class="chart" data-chart="${esc(title)}" width="300" height="76"><text x="0" y="12" class="chart-title">${esc(title)}</text>${cols}</svg>`;
}
