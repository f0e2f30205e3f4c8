import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../shared/local/cli-flags.js';
import { flagRefusal } from './flag-refusal.js';

describe('npm start --regions with a name that is not a region name', () => {
  it.each([['us-east-1,EU-West-1', 'EU-West-1'], ['us_east_1', 'us_east_1'], [`us-east-1,${'a'.repeat(33)}`, 'a'.repeat(33)]])(
    '--regions %s names the flag and the bad name, and says what a name may hold',
    (regions, bad) => {
      const message = flagRefusal(['--regions', regions]);

      expect(message).toContain('--regions');
      expect(message).toContain(`'${bad}'`);
      expect(message).toMatch(/lower-case letters, digits and dashes/);
    },
  );

  it('a list of good names is accepted as it is', () => {
    expect(parseFlags(['--regions', 'us-east-1, eu-west-1']).regions).toEqual(['us-east-1', 'eu-west-1']);
  });
});
