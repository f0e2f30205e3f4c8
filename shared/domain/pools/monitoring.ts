import type { Effect } from '../effects.js';
import type { PoolConfig } from './pool-config.js';

/**
 * Seed 003's `enable_monitoring: false`: the pool's timeout metrics (CloudWatch, and so its alarm)
 * are not emitted. Its events, the items' counters behind `GET …/metrics`, and the fence's own
 * `StaleMessageRejected` stay.
 */
export const monitored = (config: Pick<PoolConfig, 'timeout_config'>, effects: Effect[]): Effect[] =>
  config.timeout_config.enable_monitoring ? effects : effects.filter((effect) => effect.type !== 'Metric' || effect.name === 'StaleMessageRejected');
