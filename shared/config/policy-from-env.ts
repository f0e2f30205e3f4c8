import { defaultTimeoutPolicy, type TimeoutPolicy } from '../domain/policy.js';
import { LambdaEnv } from './lambda-env.js';
import { secondsEnv } from './read-env.js';

export const policyFromEnv = (env: NodeJS.ProcessEnv = process.env): TimeoutPolicy => ({
  ...defaultTimeoutPolicy,
  defaultStuckThresholdSeconds: secondsEnv(LambdaEnv.defaultStuckThresholdSeconds, defaultTimeoutPolicy.defaultStuckThresholdSeconds, env),
  gateFallbackSeconds: secondsEnv(LambdaEnv.gateFallbackSeconds, defaultTimeoutPolicy.gateFallbackSeconds, env),
  gateReportIntervalSeconds: secondsEnv(LambdaEnv.gateReportIntervalSeconds, defaultTimeoutPolicy.gateReportIntervalSeconds, env),
});
