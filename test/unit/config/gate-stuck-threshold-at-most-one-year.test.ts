import { describe, expect, it } from 'vitest';
import { gatePolicyFromEnv } from '../../../shared/config/gate-policy-from-env.js';
import { parseFlags } from '../../../shared/local/cli-flags.js';

/**
 * The gate's stuck threshold is held to one year, as the stuck threshold and gate fallback are: by
 * `npm start`, by the gate Lambda's environment, and by the CDK context (test/infra/vigil-config.test.ts).
 */
describe('the gate stuck threshold: at most one year', () => {
  it('npm start refuses --gate-stuck-threshold-seconds above one year, naming the flag and its bound, and takes one year', () => {
    // Act
    const refuse = () => parseFlags(['--gate-stuck-threshold-seconds', '31536001']);
    // Assess
    expect(refuse).toThrow(/--gate-stuck-threshold-seconds must be at most 31536000 \(one year, the longest stuck threshold a job may name\); pass a smaller number of seconds/);
    expect(() => parseFlags(['--gate-stuck-threshold-seconds', '0'])).toThrow(/--gate-stuck-threshold-seconds must be greater than 0/);
    expect(parseFlags(['--gate-stuck-threshold-seconds', '31536000']).gateStuckThresholdSeconds).toBe(31_536_000);
  });

  it('the gate Lambda refuses GATE_STUCK_THRESHOLD_SECONDS above one year at cold start, naming the variable and how to fix it', () => {
    // Act
    const refuse = () => gatePolicyFromEnv({ GATE_STUCK_THRESHOLD_SECONDS: '1e300' });
    // Assess
    expect(refuse).toThrow("Environment variable GATE_STUCK_THRESHOLD_SECONDS must be at most 31536000 seconds, got '1e300'; deploy with a smaller value (see infra/).");
    expect(gatePolicyFromEnv({ GATE_STUCK_THRESHOLD_SECONDS: '31536000' }).gateStuckThresholdSeconds).toBe(31_536_000);
  });

  it('the gate Lambda takes the defaults and the deployed report interval', () => {
    // Act
    const policy = gatePolicyFromEnv({ GATE_REPORT_INTERVAL_SECONDS: '60' });
    // Assess
    expect(policy).toMatchObject({ gateStuckThresholdSeconds: 180, extensionReportGraceSeconds: 65 });
  });
});
