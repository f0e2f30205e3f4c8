import { defaultGatePolicy, extensionReportGraceFor, type GatePolicy } from '../domain/gate/gate-policy.js';
import { defaultTimeoutPolicy } from '../domain/policy.js';
import { MAX_DURATION_SECONDS } from '../domain/time.js';
import { LambdaEnv } from './lambda-env.js';
import { secondsEnv } from './read-env.js';

/** The gate's policy as its Lambda is deployed with it (the gate stack's environment). */
export const gatePolicyFromEnv = (env: NodeJS.ProcessEnv = process.env): GatePolicy => ({
  ...defaultGatePolicy,
  // Held to what a job may name itself, as the CDK context is (infra/config/vigil-config.ts).
  gateStuckThresholdSeconds: secondsEnv(LambdaEnv.gateStuckThresholdSeconds, defaultGatePolicy.gateStuckThresholdSeconds, env, MAX_DURATION_SECONDS),
  extensionReportGraceSeconds: extensionReportGraceFor(secondsEnv(LambdaEnv.gateReportIntervalSeconds, defaultTimeoutPolicy.gateReportIntervalSeconds, env)),
});
