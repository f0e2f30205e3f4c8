import type { PoolStore } from '../../ports/pool-store.js';
import type { Rng } from '../world/rng.js';

/**
 * The claim use case picks one of the available candidates with `Math.random` (so racing agents
 * mostly take different items). A run must replay from its seed, so under the simulator the store
 * offers one candidate, drawn from the world's stream; every other call goes to the real adapter.
 */
export function withSeededClaims(store: PoolStore, rng: Rng): PoolStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'availableItemIds') {
        return async (poolId: string, limit: number) => {
          const ids = await target.availableItemIds(poolId, limit);
          return ids.length === 0 ? [] : [rng.pick(ids)];
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
