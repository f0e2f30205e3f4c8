import type { MetricName } from '../../domain/effects.js';
import type { Telemetry } from '../../ports/telemetry.js';

/**
 * Prints nothing (a run makes millions of lines): counts the lines a deployed handler would write,
 * for the cost model, and the metrics, so a report can show them.
 */
export class SilentTelemetry implements Telemetry {
  readonly metrics: Partial<Record<MetricName, number>> = {};
  constructor(private readonly lines: { logLines: number }) {}
  info(): void {
    this.lines.logLines++;
  }
  warn(): void {
    this.lines.logLines++;
  }
  error(): void {
    this.lines.logLines++;
  }
  /** A line of its own: an EMF line at the invocation's end at most, one per metric at worst. */
  metric(name: MetricName): void {
    this.metrics[name] = (this.metrics[name] ?? 0) + 1;
    this.lines.logLines++;
  }
}
