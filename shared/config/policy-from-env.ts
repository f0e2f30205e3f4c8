import { defaultTimeoutPolicy, type TimeoutPolicy } from '../domain/policy.js';
import { MAX_DURATION_SECONDS } from '../domain/time.js';
import { LambdaEnv } from './lambda-env.js';
import { secondsEnv } from './read-env.js';

export const policyFromEnv = (env: NodeJS.ProcessEnv = process.env): TimeoutPolicy => ({
  ...defaultTimeoutPolicy,
  // Held to what a job may name itself, as the CDK context is (infra/config/vigil-config.ts).
  defaultStuckThresholdSeconds: secondsEnv(LambdaEnv.defaultStuckThresholdSeconds, defaultTimeoutPolicy.defaultStuckThresholdSeconds, env, MAX_DURATION_SECONDS),
  gateFallbackSeconds: secondsEnv(LambdaEnv.gateFallbackSeconds, defaultTimeoutPolicy.gateFallbackSeconds, env, MAX_DURATION_SECONDS),
  gateReportIntervalSeconds: secondsEnv(LambdaEnv.gateReportIntervalSeconds, defaultTimeoutPolicy.gateReportIntervalSeconds, env),
});
