import type { MetricName } from '../domain/effects.js';

/** Structured logs and metrics; the attributes of a log line about a job include jobId, region, fenceToken. */
export interface Telemetry {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
  metric(name: MetricName, dimensions?: Record<string, string>): void;
}
