import type { MetricName } from '../../domain/effects.js';
import type { Telemetry } from '../../ports/telemetry.js';

/** Logs nothing (a run makes millions of lines); counts metrics so a report can show them. */
export class SilentTelemetry implements Telemetry {
  readonly metrics: Partial<Record<MetricName, number>> = {};
  info(): void {}
  warn(): void {}
  error(): void {}
  metric(name: MetricName): void {
    this.metrics[name] = (this.metrics[name] ?? 0) + 1;
  }
}
