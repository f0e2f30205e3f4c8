/** The knobs of one region manager; defaults from seed 001 §10.8 and AD-26. */
export interface TimeoutPolicy {
  defaultStuckThresholdSeconds: number;
  gateFallbackSeconds: number;
  gateReportIntervalSeconds: number;
  extensions: ExtensionPolicy;
  /** How long a worker may stay past its health deadline (suspect) before it counts as failed. */
  workerSuspicionSeconds: number;
}

export interface ExtensionPolicy {
  baseSeconds: number;
  minGrantSeconds: number;
  maxExtensions: number;
}

export const defaultExtensionPolicy: ExtensionPolicy = { baseSeconds: 30, minGrantSeconds: 1, maxExtensions: 5 };

export const defaultTimeoutPolicy: TimeoutPolicy = {
  defaultStuckThresholdSeconds: 120,
  gateFallbackSeconds: 300,
  gateReportIntervalSeconds: 10,
  extensions: defaultExtensionPolicy,
  workerSuspicionSeconds: 30,
};
