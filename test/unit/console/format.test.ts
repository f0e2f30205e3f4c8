import { describe, expect, it } from 'vitest';
import { shortTime, timeLeft } from '../../../shared/console/web/src/format.js';

describe('times for a person', () => {
  it('a time of today reads as the time of day; of another day, with its date', () => {
    const today = new Date(2026, 0, 15, 12, 0, 0);
    const sameTimeEarlier = new Date(2026, 0, 12, 9, 30, 0);
    expect(shortTime(new Date(2026, 0, 15, 9, 30, 0).toISOString(), today)).toBe(new Date(2026, 0, 15, 9, 30, 0).toLocaleTimeString());
    expect(shortTime(sameTimeEarlier.toISOString(), today)).toBe(sameTimeEarlier.toLocaleString());
    expect(shortTime(undefined, today)).toBe('');
  });

  it('time left is counted from the clock it is given (Vigil’s, not necessarily the browser’s)', () => {
    const deadline = '2026-01-15T12:02:00.000Z';
    expect(timeLeft(deadline, Date.parse('2026-01-15T12:00:00.000Z'))).toBe('2m 00s left');
    expect(timeLeft(deadline, Date.parse('2026-01-15T12:02:12.000Z'))).toBe('12s overdue');
  });
});
