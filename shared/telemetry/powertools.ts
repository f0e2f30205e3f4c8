import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { MetricName } from '../domain/effects.js';
import type { Telemetry } from '../ports/telemetry.js';
import { WAKE_UP_LATENESS_DIMENSION, WAKE_UP_LATENESS_METRIC } from './wake-up-lateness.js';

/** One logger and one metrics buffer per process (Lambda module scope). */
export const logger = new Logger({ serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'vigil' });
export const metrics = new Metrics({
  namespace: process.env['POWERTOOLS_METRICS_NAMESPACE'] ?? 'Vigil',
  serviceName: process.env['POWERTOOLS_SERVICE_NAME'] ?? 'vigil',
});

/** Powertools' own switch (POWERTOOLS_METRICS_DISABLED; this process never sets POWERTOOLS_DEV). */
const metricsDisabled = (): boolean => /^(true|1)$/i.test(process.env['POWERTOOLS_METRICS_DISABLED'] ?? '');

/** JSON logs through Powertools Logger; metrics as CloudWatch EMF through Powertools Metrics. */
export class PowertoolsTelemetry implements Telemetry {
  constructor(
    private readonly baseAttributes: Record<string, unknown> = {},
    private readonly onMetric?: (name: MetricName, dimensions?: Record<string, string>) => void,
  ) {}

  info(message: string, attributes: Record<string, unknown> = {}): void {
    logger.info(message, { ...this.baseAttributes, ...attributes });
  }
  warn(message: string, attributes: Record<string, unknown> = {}): void {
    logger.warn(message, { ...this.baseAttributes, ...attributes });
  }
  error(message: string, attributes: Record<string, unknown> = {}): void {
    logger.error(message, { ...this.baseAttributes, ...attributes });
  }
  metric(name: MetricName, dimensions?: Record<string, string>): void {
    this.onMetric?.(name, dimensions);
    // Disabled (the local cloud counts its metrics in-process): a single metric would still build a
    // Metrics instance and its Console for each call, a twentieth of a timeout burst's CPU, to print nothing.
    if (metricsDisabled()) return;
    if (!dimensions) {
      metrics.addMetric(name, MetricUnit.Count, 1);
      return;
    }
    const single = metrics.singleMetric();
    for (const [key, value] of Object.entries(dimensions)) single.addDimension(key, value);
    single.addMetric(name, MetricUnit.Count, 1);
  }
}

/** One timer-queue batch's lateness (`wake-up-lateness.ts`), printed at once as its own EMF line. */
export function recordWakeUpLateness(functionName: string, latenessMs: number): void {
  if (metricsDisabled()) return;
  const single = metrics.singleMetric();
  single.addDimension(WAKE_UP_LATENESS_DIMENSION, functionName);
  single.addMetric(WAKE_UP_LATENESS_METRIC, MetricUnit.Milliseconds, latenessMs);
}
