import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command (`vigil console` runs through tsx).
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil console --port "$CONSOLE_PORT"` with the variable unset, or `--port 0x50`. The
 * flag was read with Number(): the empty value became port 0 (a random free port, announced only in
 * the output) and `0x50` port 80, with no word; `npm start` refuses the same values
 * (test/integration/local-cloud-guards.test.ts: "--port with an empty value is refused, not silently
 * turned into port 0").
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): exit 2 is bad usage or bad input, "the
 * message says how to fix it". Correct behaviour: anything but a whole number 0–65535 written in
 * digits is exit 2 naming --port, and nothing is served.
 */
describe('vigil console --port', () => {
  it.each(['', '0x50', '1e3', ' 80'])("--port '%s' is exit 2 naming --port, not a console on some other port", async (port) => {
    // Act: a console that starts runs until killed (code null)
    const result = await runVigil(['console', '--endpoint', 'http://127.0.0.1:9', '--port', port], { timeoutMs: 20_000 });
    // Assess
    expect(result.stdout, result.transcript).not.toMatch(/^console http/m);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('--port must be a whole number');
  });
});

/**
 * Scenario: `vigil console` while its port is taken (a second console on the default 4800). It died
 * with Node's uncaught `Error: listen EADDRINUSE` stack trace and exit 1, the code for a failed job.
 * Correct behaviour: exit 2 naming the port and what to do (another --port, or 0 for a free one), as
 * `npm start` does for its own ports.
 */
describe('vigil console on a port already in use', () => {
  it('is exit 2 naming the port and --port, not an uncaught EADDRINUSE stack trace', async () => {
    // Prepare
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      // Act
      const result = await runVigil(['console', '--endpoint', 'http://127.0.0.1:9', '--port', String(port)], { timeoutMs: 20_000 });
      // Assess
      expect(result.stderr, result.transcript).not.toMatch(/\n\s+at .*:\d+:\d+/);
      expect(result.code, result.transcript).toBe(2);
      expect(result.stderr, result.transcript).toContain(`Port ${port} is in use`);
      expect(result.stderr, result.transcript).toContain('--port');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
