import { defaultTimeoutPolicy } from '../domain/policy.js';

/**
 * How often a gate-coordinated manager reports to the local gate: the policy's 10 s, or half the
 * gate stuck threshold when `--gate-stuck-threshold-seconds` is that short, so the gate hears of
 * progress often enough to apply the threshold it was given (the CDK app refuses such a pair instead).
 */
export const localGateReportIntervalSeconds = (gateStuckThresholdSeconds: number, asked?: number): number =>
  asked ?? Math.min(defaultTimeoutPolicy.gateReportIntervalSeconds, gateStuckThresholdSeconds / 2);
