import { describe, expect, it } from 'vitest';
import { flagRefusal } from './flag-refusal.js';

describe('npm start --port that is not a number', () => {
  it.each([['abc'], ['4700.5'], ['-1']])("--port=%s says it needs a whole number, not 'pass a lower --port'", (port) => {
    const message = flagRefusal([`--port=${port}`, '--regions', 'us-east-1']);

    expect(message).toMatch(/--port needs a whole number of 0–65535/);
    expect(message).not.toMatch(/lower --port|leaves no room/);
  });

  it('a number that leaves the regions no room still says so', () => {
    expect(flagRefusal(['--port', '65535', '--regions', 'us-east-1'])).toMatch(/leaves no room for the regions.*pass a lower --port/);
  });
});
