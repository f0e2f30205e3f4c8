import { describe, expect, it } from 'vitest';
import { cancelPool, completeIfDone, failPool } from '../../../../shared/domain/pools/pool-decisions.js';
import { afterWakeChunk } from '../../../../shared/domain/pools/wake-pass.js';
import type { BusEvent } from '../../../../shared/ports/event-bus.js';
import { at, poolWith } from './pool-fixtures.js';

const stopped = (afterItemId?: string) => ({ ...poolWith({}, 'CANCELLED'), finishedAt: at(10), reason: 'operator', wakePass: afterItemId === undefined ? {} : { afterItemId }, timerDueAt: at(10) });
const noneLeft = { available: 0, running: 0, succeeded: 1, failed: 0, skipped: 0, dlq: 0, escalated: 0 };

describe("a stop's wake pass (pure)", () => {
  it('a cancel and a failure write the pass with the stop, its wake-up stored at the stop and not armed; a completion writes none', () => {
    // Act
    const cancelled = cancelPool(poolWith(), 'operator', at(10));
    const failed = failPool(poolWith(), 'item i-1 timed out', at(10));
    const completed = completeIfDone(poolWith(), noneLeft, at(10));
    // Assess
    for (const stop of [cancelled, failed]) {
      expect(stop.state).toMatchObject({ wakePass: {}, timerDueAt: at(10), finishedAt: at(10) });
      expect(stop.effects.filter((effect) => effect.type === 'ArmTimer')).toEqual([]);
    }
    expect(completed.state.status).toBe('COMPLETED');
    expect(completed.state.wakePass).toBeUndefined();
    expect(completed.state.timerDueAt).toBeUndefined();
  });

  it('a cancel sent again leaves a pass under way as it is, and starts a new one once it is over', () => {
    // Prepare
    const underWay = stopped('i-09');
    const { wakePass: _over, timerDueAt: _none, ...over } = underWay;
    // Act
    const again = cancelPool(underWay, 'again', at(20));
    const afterThePass = cancelPool(over, 'again', at(20));
    // Assess
    expect(again.state).toBe(underWay);
    expect(afterThePass.state).toMatchObject({ wakePass: {}, timerDueAt: at(20), reason: 'operator', finishedAt: at(10) });
  });

  it('a chunk moves the pass past its last item and arms the next chunk now', () => {
    // Act
    const { state, effects } = afterWakeChunk(stopped('i-02'), { from: 'i-02', reached: 'i-05' }, at(11));
    // Assess
    expect(state).toMatchObject({ wakePass: { afterItemId: 'i-05' }, timerDueAt: at(11) });
    expect(effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'pool', jobId: 'p', fenceToken: 0, dueAt: at(11) } }]);
  });

  it('a chunk whose place the pass already left (a second delivery, a chunk beside it) changes nothing', () => {
    // Prepare
    const pool = stopped('i-05');
    // Act
    const repeated = afterWakeChunk(pool, { from: 'i-02', reached: 'i-05' }, at(12));
    const fromTheStart = afterWakeChunk(pool, { from: undefined, reached: undefined }, at(12));
    // Assess
    expect(repeated.state).toBe(pool);
    expect(fromTheStart.state).toBe(pool);
    expect([...repeated.effects, ...fromTheStart.effects]).toEqual([]);
  });

  it('the chunk that finds no running item after it ends the pass and its wake-up, unless an outbox still waits for its retry', () => {
    // Prepare
    const waiting = { ...stopped('i-09'), outbox: [{ source: 'vigil', detailType: 'PoolFinished', detail: {} } as unknown as BusEvent] };
    // Act
    const ended = afterWakeChunk(stopped('i-09'), { from: 'i-09', reached: undefined }, at(13));
    const endedWithOutbox = afterWakeChunk(waiting, { from: 'i-09', reached: undefined }, at(13));
    // Assess
    expect(ended.state.wakePass).toBeUndefined();
    expect(ended.state.timerDueAt).toBeUndefined();
    expect(ended.effects).toEqual([]);
    expect(endedWithOutbox.state.wakePass).toBeUndefined();
    expect(endedWithOutbox.state.timerDueAt).toBe(at(10));
  });
});
