import { describe, expect, it } from 'vitest';
import { parseSimulateArgs, UsageError } from '../../shared/simulation/cli-args.js';
import { FAULT_KINDS } from '../../shared/simulation/world/plan.js';

const mistake = (argv: string[]): string => {
  try {
    parseSimulateArgs(argv);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${argv.join(' ')} was accepted`);
};

describe('the simulator command line', () => {
  it('keeps every flag and its meaning, with both --flag value and --flag=value', () => {
    const args = parseSimulateArgs(['--seed', '7', '--seeds=20', '--jobs', '3', '--regions', '2', '--pools', '1', '--max-timeout', '300', '--faults', 'drop,agent-dies', '--store', 'dynalite', '--trace']);
    expect(args).toEqual({
      seed: 7,
      seeds: 20,
      trace: true,
      store: 'dynalite',
      options: { jobs: 3, regions: 2, pools: 1, maxTimeoutSeconds: 300, faults: ['drop', 'agent-dies'] },
    });
  });

  it('defaults: seed 1, one seed, four jobs over two regions, no pools, every fault, the in-memory store', () => {
    expect(parseSimulateArgs([])).toEqual({
      seed: 1,
      seeds: 1,
      trace: false,
      store: 'memory',
      options: { jobs: 4, regions: 2, pools: 0, maxTimeoutSeconds: 600, faults: [...FAULT_KINDS] },
    });
    expect(parseSimulateArgs(['--faults', 'none']).options.faults).toEqual([]);
  });

  it.each([
    [['--sed', '3'], /'--sed'.*not a simulator flag/],
    [['--seed'], /'--seed <value>'.*give the flag a value/],
    [['7'], /'7'.*every argument is a --flag/],
    [['--seeds', 'many'], /--seeds must be a whole number ≥ 1, got 'many'/],
    [['--jobs=-1'], /--jobs must be a whole number ≥ 0, got '-1'/],
    [['--jobs', '-1'], /'--jobs' argument is ambiguous: give the flag a value/],
    [['--regions', '0'], /--regions must be a whole number ≥ 1/],
    [['--max-timeout', '30'], /--max-timeout must be a whole number ≥ 60/],
    [['--faults', 'drop,meteor'], /--faults: unknown fault kind\(s\) meteor\. Known: drop,/],
    [['--store', 'postgres'], /--store must be memory or dynalite, got 'postgres'/],
  ])('%j is refused with a message naming the flag and the fix', (argv, message) => {
    const text = mistake(argv);
    expect(text).toMatch(message);
    expect(text).toContain('usage: npm run simulate --');
  });

  // First-time user: `--seeds` with no value was answered "… e.g. --seed 7", naming another flag.
  it.each(['seed', 'seeds', 'jobs', 'regions', 'pools', 'max-timeout', 'faults', 'store'])('--%s without a value is answered with an example of that same flag', (flag) => {
    // Act
    const text = mistake([`--${flag}`]);
    // Assess
    expect(text).toMatch(new RegExp(`give the flag a value, e\\.g\\. --${flag} \\S+ or --${flag}=\\S+\\.`));
  });
});
