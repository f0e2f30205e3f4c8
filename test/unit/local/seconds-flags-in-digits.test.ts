import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../shared/local/cli-flags.js';
import { flagRefusal } from './flag-refusal.js';

// Local cloud review (noticed): `--stuck-threshold-seconds 0x10` ran with 16 s, and an empty value
// was told "must be greater than 0", as if 0 had been written.
describe('npm start seconds flags are numbers written in digits', () => {
  it.each(['0x10', '1e3', '', ' ', 'Infinity', '12abc'])('--stuck-threshold-seconds %j is refused, naming the flag and what was written', (value) => {
    const message = flagRefusal(['--stuck-threshold-seconds', value]);
    expect(message).toContain('--stuck-threshold-seconds needs a number of seconds written in digits');
    expect(message).toContain(`'${value}'`);
  });

  it('0 is refused as not greater than 0', () => {
    expect(flagRefusal(['--gate-fallback-seconds', '0'])).toBe('--gate-fallback-seconds must be greater than 0');
  });

  it('whole and decimal seconds are taken as written', () => {
    const flags = parseFlags(['--stuck-threshold-seconds', '90', '--gate-fallback-seconds', '2.5']);
    expect([flags.stuckThresholdSeconds, flags.gateFallbackSeconds, flags.gateStuckThresholdSeconds]).toEqual([90, 2.5, 180]);
  });
});
