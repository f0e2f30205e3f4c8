import { describe, expect, it } from 'vitest';
import {
  InvalidTimerMessageError,
  parseTimerMessage,
  timerMessageBody,
} from '../../../../shared/adapters/aws/timer-message.js';
import { collectionTimerId } from '../../../../shared/domain/pools/pool-item.js';
import type { TimerRequest } from '../../../../shared/ports/timers.js';

describe('timer messages on the SQS timer queue', () => {
  it('round-trip a timer, and only its four fields', () => {
    const timer: TimerRequest = { scope: 'gate', jobId: 'a:b.c_d-e', fenceToken: 0, dueAt: 1_900_000_000_000 };
    const withExtra = { ...timer, note: 'not sent' };
    expect(parseTimerMessage(timerMessageBody(withExtra))).toEqual(timer);
    expect(JSON.parse(timerMessageBody(withExtra))).toEqual(timer);
  });

  it('reject a body that is not JSON', () => {
    expect(() => parseTimerMessage('not json')).toThrow(InvalidTimerMessageError);
  });

  it("carry the longest timer id: a collection's, of a 128-character pool id and a 128-character collectionId the client chose", () => {
    // Prepare
    const timer: TimerRequest = { scope: 'pool', jobId: collectionTimerId('p'.repeat(128), 'c'.repeat(128)), fenceToken: 0, dueAt: 1_900_000_000_000 };
    // Act
    const parsed = parseTimerMessage(timerMessageBody(timer));
    // Assess
    expect(timer.jobId).toHaveLength(269);
    expect(parsed).toEqual(timer);
  });

  it('name every field that is wrong', () => {
    // 269 is the longest timer id: a collection's `poolId/#collection#collectionId`.
    const body = JSON.stringify({ scope: 'region', jobId: 'x'.repeat(270), fenceToken: -1 });
    expect(() => parseTimerMessage(body)).toThrow(/scope: .*jobId: .*fenceToken: .*dueAt: /);
  });
});
