import type { LocalEventNetwork } from '../adapters/local/local-event-network.js';
import type { Clock } from '../ports/clock.js';
import type { Route } from './http-routes.js';
import type { LocalMetrics } from './local-metrics.js';
import type { LocalRegion } from './local-region.js';

export interface LocalGate {
  sweep(): Promise<void>;
  close(): Promise<void>;
}

export interface LocalGateOptions {
  dataDir: string;
  regions: Map<string, LocalRegion>;
  clock: Clock;
  network: LocalEventNetwork;
  metrics: LocalMetrics;
  gateStuckThresholdSeconds: number;
}

export const gateRoutes: Route[] = [
  { method: 'GET', path: '/health', handler: async () => (await import('../../functions/api/health.js')).handler },
];

export async function startLocalGate(_options: LocalGateOptions): Promise<LocalGate> {
  return { sweep: async () => undefined, close: async () => undefined };
}
