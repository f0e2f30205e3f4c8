import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { poolConfigSchema } from '../../../../shared/contract/pool-requests.js';
import { agentHeartbeatSeconds } from '../../../../shared/domain/pools/heartbeat-cadence.js';
import { resolvePoolConfig } from '../../../../shared/domain/pools/pool-config.js';

/**
 * The cadence a claim answers (`heartbeatIntervalSeconds`) must let an agent that hears of a stop or a
 * checkpoint collection on its next beat act within the window it has: the cleanup grace period runs
 * from the stop, a collection's request is open `checkpoint_timeout_secs`. A third of the shorter one
 * leaves two thirds after one beat, a third after a beat missed. 5 s for every pool was a guess.
 */

/** Seconds as a pool may name them: whole, fractions, the millisecond floor, up to a year. */
const seconds = fc.oneof(fc.integer({ min: 1, max: 3_600 }), fc.double({ min: 0.001, max: 31_536_000, noNaN: true }), fc.constantFrom(0.001, 1, 2.999, 3, 3.3, 30, 300));

/** Any config the API accepts (optional keys left to their defaults), resolved as a pool holds it. */
const validConfig = fc
  .record(
    {
      checkpoint_interval_secs: seconds,
      checkpoint_timeout_secs: seconds,
      timeout_config: fc.record({ cleanup_grace_period_secs: fc.oneof(fc.constant(0), fc.double({ min: 0.001, max: 3_600, noNaN: true }), fc.integer({ min: 1, max: 3_600 })) }, { requiredKeys: [] }),
    },
    { requiredKeys: [] },
  )
  .map((input) => poolConfigSchema.safeParse(input))
  .filter((parsed) => parsed.success)
  .map((parsed) => resolvePoolConfig(parsed.data as Parameters<typeof resolvePoolConfig>[0]));

// The cadence is whole milliseconds given in seconds: × 3 in floating point may land a rounding above.
const ROUNDING_SECONDS = 1e-9;

describe('the heartbeat cadence a pool needs (claim answer heartbeatIntervalSeconds)', () => {
  it('is 10 s for a default pool: a third of its 30 s grace period and 30 s checkpoint timeout', () => {
    expect(agentHeartbeatSeconds(resolvePoolConfig({}))).toBe(10);
  });

  it('follows the shorter window, never under 1 s, and never over half the checkpoint interval', () => {
    expect(agentHeartbeatSeconds(resolvePoolConfig({ checkpoint_timeout_secs: 60 }))).toBe(10);
    expect(agentHeartbeatSeconds(resolvePoolConfig({ timeout_config: { cleanup_grace_period_secs: 3_600 }, checkpoint_timeout_secs: 12 }))).toBe(4);
    expect(agentHeartbeatSeconds(resolvePoolConfig({ timeout_config: { cleanup_grace_period_secs: 10 } }))).toBe(3.333);
    expect(agentHeartbeatSeconds(resolvePoolConfig({ timeout_config: { cleanup_grace_period_secs: 0 } }))).toBe(1);
    expect(agentHeartbeatSeconds(resolvePoolConfig({ checkpoint_interval_secs: 4, checkpoint_timeout_secs: 3 }))).toBe(1);
    expect(agentHeartbeatSeconds(resolvePoolConfig({ checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.5 }))).toBe(0.5);
  });

  it('for any valid config: cadence × 3 is within the grace period and the checkpoint timeout (when a third of them is 1 s or more), and the cadence at most half the checkpoint interval', () => {
    fc.assert(
      fc.property(validConfig, (config) => {
        // Act
        const cadence = agentHeartbeatSeconds(config);
        // Assess
        const window = Math.min(config.timeout_config.cleanup_grace_period_secs, config.checkpoint_timeout_secs);
        expect(cadence).toBeGreaterThan(0);
        expect(cadence).toBeLessThanOrEqual(config.checkpoint_interval_secs / 2);
        if (window / 3 >= 1) {
          expect(cadence * 3).toBeLessThanOrEqual(window + ROUNDING_SECONDS);
          // Not needlessly faster than the rule: within a millisecond of a third, or half the interval
          expect(cadence).toBeGreaterThanOrEqual(Math.min(window / 3 - 0.001, config.checkpoint_interval_secs / 2));
        } else {
          expect(cadence).toBe(Math.min(1, config.checkpoint_interval_secs / 2));
        }
      }),
      { numRuns: 2_000 },
    );
  });
});
