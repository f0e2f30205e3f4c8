import type { MetricName } from '../domain/effects.js';

/** Metric counts of the local cloud, served at `GET /_local/metrics` (CloudWatch's stand-in). */
export class LocalMetrics {
  private readonly counts = new Map<string, number>();

  record(scope: string, name: MetricName, dimensions?: Record<string, string>): void {
    const labels = dimensions ? Object.entries(dimensions).map(([k, v]) => `${k}=${v}`).join(',') : '';
    const key = `${scope} ${name}${labels ? `{${labels}}` : ''}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counts].sort(([a], [b]) => a.localeCompare(b)));
  }
}
