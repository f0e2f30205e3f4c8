import { describe, expect, it, vi } from 'vitest';
import { consoleTargets } from '../../shared/cli/commands/console.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `--endpoint localhost:4701` (or `VIGIL_ENDPOINT=localhost:4701`), the scheme left out.
 * `new URL` reads `localhost:` as the scheme, so the flag passed as a URL: the command then tried five
 * times, said "Vigil at localhost:4701 did not answer … Is it running?" and exited 4, as if Vigil were
 * down; `--worker-endpoint` did the same per attempt, and `vigil console` forwarded every call into
 * a 502.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): exit 2 is bad usage or bad input, "the
 * message says how to fix it"; 4 is Vigil unreachable. Correct behaviour: an endpoint that is not an
 * http(s) URL is exit 2, naming it and the form it needs, before any call.
 */
describe('vigil: an endpoint without http:// or https://', () => {
  it('--endpoint localhost:4701 is exit 2 saying it needs http://, not exit 4 "is it running?"', async () => {
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', 'localhost:4701']);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain("'localhost:4701'");
    expect(result.stderr, result.transcript).toContain('http://');
    expect(result.stderr, result.transcript).not.toContain('Is it running?');
  });

  it('VIGIL_ENDPOINT=localhost:4701 is exit 2 naming VIGIL_ENDPOINT', async () => {
    // Act
    const result = await runVigil(['status', 'job-1'], { env: { VIGIL_ENDPOINT: 'localhost:4701' } });
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('VIGIL_ENDPOINT');
    expect(result.stderr, result.transcript).toContain('http://');
  });

  it('vigil run --worker-endpoint localhost:4701 is exit 2 before any claim', async () => {
    // Act: the claim endpoint answers nothing; a claim would be exit 4
    const result = await runVigil(['run', '--pool', 'p', '--agent', 'a', '--endpoint', 'http://127.0.0.1:9', '--worker-endpoint', 'localhost:4701', '--', 'true'], { env: { VIGIL_CLAIM_PATIENCE_SECONDS: '1' } });
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain("--worker-endpoint 'localhost:4701'");
  });

  it('vigil console --endpoint localhost:4701 is refused, not served as a console whose every call fails', () => {
    expect(() => consoleTargets({ endpoint: 'localhost:4701' })).toThrow(/--endpoint 'localhost:4701'.*http/);
    expect(() => consoleTargets({ 'gate-endpoint': 'localhost:4700' })).toThrow(/--gate-endpoint 'localhost:4700'.*http/);
  });
});
