import { describe, expect, it } from 'vitest';
import {
  InvalidTimerMessageError,
  parseTimerMessage,
  timerMessageBody,
} from '../../../../shared/adapters/aws/timer-message.js';
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

  it('name every field that is wrong', () => {
    // 257 is the longest timer id: a pool item's `poolId/itemId`.
    const body = JSON.stringify({ scope: 'region', jobId: 'x'.repeat(258), fenceToken: -1 });
    expect(() => parseTimerMessage(body)).toThrow(/scope: .*jobId: .*fenceToken: .*dueAt: /);
  });
});
