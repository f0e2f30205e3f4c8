import { describe, expect, it } from 'vitest';
import { secondsFlag } from '../../../shared/cli/seconds-flag.js';
import { UsageError } from '../../../shared/cli/exit-codes.js';
import { MAX_DURATION_SECONDS } from '../../../shared/domain/time.js';

/** `vigil` flags that hold seconds (`--grace`, `--heartbeat`, `--interval`, …) take 0 (or just above) up to one year. */
describe('secondsFlag', () => {
  it('takes a number of seconds up to one year, fractions too; absent, the fallback', () => {
    // Act
    const taken = [secondsFlag('grace', '2.5', 30), secondsFlag('grace', String(MAX_DURATION_SECONDS), 30), secondsFlag('grace', '0', 30), secondsFlag('grace', undefined, 30)];
    // Assess
    expect(taken).toEqual([2.5, MAX_DURATION_SECONDS, 0, 30]);
  });

  it.each(['1e300', '31536000.5', 'Infinity'])('refuses %s, beyond one year, naming the flag and its range', (value) => {
    // Act
    const refuse = () => secondsFlag('grace', value, 30);
    // Assess
    expect(refuse).toThrow(UsageError);
    expect(refuse).toThrow(`--grace must be a number of seconds ≥ 0 and ≤ 31536000 (one year), not '${value}'.`);
  });

  it.each(['0', '-1', 'soon', ' ', 'NaN'])("refuses %j where the flag must be above 0, naming the range", (value) => {
    // Act
    const refuse = () => secondsFlag('heartbeat', value, 5, { above: 0 });
    // Assess
    expect(refuse).toThrow(`--heartbeat must be a number of seconds > 0 and ≤ 31536000 (one year), not '${value}'.`);
  });
});
