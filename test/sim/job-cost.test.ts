import { describe, expect, it } from 'vitest';
import { stepFunctionsPerJob } from '../../shared/simulation/cost/alternatives.js';
import { ACCESS_LOG_BYTES_PER_REQUEST, LAMBDA_LOG_BYTES_PER_INVOCATION, PRICES, XRAY_TRACED_SHARE } from '../../shared/simulation/cost/prices.js';
import { NO_USAGE, priceOf } from '../../shared/simulation/cost/usage.js';
import { measureVigil } from '../../shared/simulation/cost/vigil-usage.js';

const MINUTE = 60_000;

describe('the job cost model prices what AWS bills', () => {
  it('Step Functions Standard: one transition per state executed (Start, Parallel, a task per workflow, End) per region', () => {
    expect(stepFunctionsPerJob({ name: 'sketch', regions: 1, workflows: 4, durationMs: 15 * MINUTE, progressEveryMs: 60_000 }).transitions).toBe(7);
    const threeRegions = stepFunctionsPerJob({ name: '3 regions', regions: 3, workflows: 10, durationMs: MINUTE, progressEveryMs: 10_000 });
    expect(threeRegions.transitions).toBe(39);
    expect(threeRegions.usd).toBeCloseTo(39 * PRICES.stepFunctionsStandardPerTransition, 12);
  });

  it('Vigil pays for its logs, and its traces when deployed with tracing: every invocation logs, every API Gateway request writes an access-log line', () => {
    const usage = { ...NO_USAGE, lambdaInvocations: 1_000_000 };
    const logs = (1_000_000 * LAMBDA_LOG_BYTES_PER_INVOCATION) / 1e9 * PRICES.cloudWatchLogsPerGb;
    expect(priceOf(usage).observability).toBeCloseTo(logs, 9);
    expect(priceOf(usage).total).toBeCloseTo(priceOf(usage).lambda + logs, 9);
    expect(priceOf(usage, { tracing: true }).observability).toBeCloseTo(logs + 1_000_000 * XRAY_TRACED_SHARE * PRICES.xRayPerTrace, 9);
    const workerCalls = { ...NO_USAGE, apiRequestsWorker: 1_000_000 };
    expect(priceOf(workerCalls).observability).toBeCloseTo((1_000_000 * ACCESS_LOG_BYTES_PER_REQUEST) / 1e9 * PRICES.cloudWatchLogsPerGb, 9);
    // Function URLs write no access log and bill no request
    expect(priceOf(workerCalls, { workerFunctionUrl: true }).total).toBe(0);
  });

  it('every event a rule forwards to another bus is billed again, the gate region’s own reports too', async () => {
    // Act: a gate-coordinated job in three regions, the gate in the first
    const { perJob } = await measureVigil({ name: '3 regions', regions: 3, workflows: 2, durationMs: MINUTE, progressEveryMs: 10_000 });
    // Assess: every published event of this job is a manager report to the gate or a gate decision to a region
    expect(perJob.eventBridgeEvents).toBeGreaterThan(0);
    expect(perJob.forwardedEvents).toBe(perJob.eventBridgeEvents);
    expect(priceOf(perJob).eventBridge).toBeCloseTo(perJob.eventBridgeEvents * (PRICES.eventBridgePerEvent + PRICES.eventBridgePerForwardedEvent), 12);
  });
});
