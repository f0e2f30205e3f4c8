import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../shared/adapters/local/virtual-clock.js';
import { parseFlags } from '../../../shared/local/cli-flags.js';
import { clockRoutes, MAX_ADVANCE_MS } from '../../../shared/local/clock-routes.js';
import { localClock, VIRTUAL_CLOCK_FILE } from '../../../shared/local/local-clock.js';
import { T0 } from '../../support/fixtures.js';

describe('the local clock control routes', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-clock-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('on the system clock, GET says so and an advance is a 409 that says how to get a virtual clock', async () => {
    // Prepare
    const route = clockRoutes(localClock({ dataDir }));
    // Act
    const view = await route('GET', '/_local/clock', '');
    const refused = await route('POST', '/_local/clock/advance', '{"ms":1000}');
    // Assess
    expect(view).toMatchObject({ statusCode: 200, body: { mode: 'system' } });
    expect(refused).toMatchObject({ statusCode: 409, body: { error: { code: 'virtual_clock_off', message: expect.stringContaining('--virtual-clock') } } });
  });

  it('on the virtual clock, an advance by ms or to a time answers the new time and records it for a restart', async () => {
    // Prepare
    const clock = localClock({ dataDir, virtualClock: true });
    const route = clockRoutes(clock);
    const start = clock.scheduler.now();
    // Act
    const byMs = await route('POST', '/_local/clock/advance', '{"ms":1500}');
    const toTime = await route('POST', '/_local/clock/advance', JSON.stringify({ to: start + 2_000 }));
    // Assess
    expect(byMs).toMatchObject({ statusCode: 200, body: { mode: 'virtual', now: start + 1_500 } });
    expect(toTime).toMatchObject({ statusCode: 200, body: { mode: 'virtual', now: start + 2_000, nowIso: new Date(start + 2_000).toISOString() } });
    expect(JSON.parse(readFileSync(join(dataDir, VIRTUAL_CLOCK_FILE), 'utf8'))).toEqual({ now: start + 2_000 });
    // A restart on the same data dir resumes there.
    expect(localClock({ dataDir, virtualClock: true }).scheduler.now()).toBe(start + 2_000);
  });

  it.each([
    ['not JSON', '{ms:1}', /not JSON/],
    ['a negative step', '{"ms":-1}', /ms must be ≥ 0/],
    ['a step over the cap', JSON.stringify({ ms: MAX_ADVANCE_MS + 1 }), /at most/],
    ['an unknown field', '{"ms":1,"seconds":1}', /invalid/],
    ['no body', '', /invalid/],
    ['a time in the past', JSON.stringify({ to: T0 - 1 }), /never goes back/],
  ])('refuses %s with a 400 that says what is wrong, and time does not move', async (_, body, message) => {
    // Prepare
    const clock = localClock({ dataDir, clock: new VirtualClock(T0) });
    const route = clockRoutes(clock);
    // Act
    const answer = await route('POST', '/_local/clock/advance', body);
    // Assess
    expect(answer).toMatchObject({ statusCode: 400, body: { error: { code: 'invalid_request', message: expect.stringMatching(message) } } });
    expect(clock.scheduler.now()).toBe(T0);
  });

  it('a corrupt clock file stops the start with a message that says how to recover', () => {
    writeFileSync(join(dataDir, VIRTUAL_CLOCK_FILE), '{"now":"soon"}');
    expect(() => localClock({ dataDir, virtualClock: true })).toThrow(/delete it/);
  });

  it('npm start takes --virtual-clock; without it the clock is the system one', () => {
    expect(parseFlags(['--virtual-clock']).virtualClock).toBe(true);
    expect(parseFlags([]).virtualClock).toBe(false);
  });
});
