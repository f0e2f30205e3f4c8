import { describe, expect, it } from 'vitest';
import { getItem } from '../../../shared/app/pools/get-pool.js';
import { useTestManager } from '../support/test-manager.js';
import { VigilError } from '../../../shared/domain/errors.js';
import { claim, newPool, send } from './pool-test-support.js';

/**
 * Contract: a refused result is "kept in the item's history as a late result, never dropped
 * silently"; only a `complete` *sent again* (its answer lost) is answered as the first was. In
 * `onOverAttempt` a second `complete` with the same outcome but another result is taken for such a
 * repeat: answered 200 `{ state: "succeeded" }` as if accepted, and its result is neither applied nor
 * kept anywhere. (A repeat with another body is a conflict everywhere else in the contract: 409.)
 */
describe('a second complete with another result is not silently acknowledged (dynalite)', () => {
  const m = useTestManager();

  it('complete {v:1}, then complete {v:2} for the same attempt: refused (409) and kept as a late result', async () => {
    // Prepare
    await newPool(m.deps, {});
    const agent = await claim(m.deps, 'a');
    await send(m.deps, agent, { type: 'complete', outcome: 'succeeded', result: { v: 1 } });
    // Act
    const second = await send(m.deps, agent, { type: 'complete', outcome: 'succeeded', result: { v: 2 } }).then(
      (answered) => ({ answered }),
      (error: unknown) => error,
    );
    // Assess
    const item = await getItem(m.deps, 'p', 'i-1');
    expect(item.result).toEqual({ v: 1 });
    expect(second).toBeInstanceOf(VigilError);
    expect(item.history[0]?.lateResults?.[0]).toMatchObject({ call: 'complete', result: { outcome: 'succeeded', result: { v: 2 } } });
  });

  it('terminated {partial:1} within the grace period, then terminated {partial:2}: the second partial result is kept, not acknowledged and dropped', async () => {
    // Prepare: the attempt times out and stops gracefully with a partial result
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 30 } });
    const agent = await claim(m.deps, 'a');
    m.clock.set(Date.parse('2026-03-01T12:00:11.000Z'));
    expect(await send(m.deps, agent, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
    await send(m.deps, agent, { type: 'terminated', cleanup: 'completed', partialResult: { partial: 1 } });
    // Act: another report with another partial result
    const second = await send(m.deps, agent, { type: 'terminated', cleanup: 'failed', partialResult: { partial: 2 } }).then(
      (answered) => ({ answered }),
      (error: unknown) => error,
    );
    // Assess: answered or refused, what it carried is somewhere
    const item = await getItem(m.deps, 'p', 'i-1');
    expect(item.partialResult).toEqual({ partial: 1 });
    expect(second).toMatchObject({ answered: { state: 'dlq' } });
    expect(item.history[0]?.lateResults?.[0]).toMatchObject({ call: 'terminated', result: { cleanup: 'failed', partialResult: { partial: 2 } } });
  });
});
