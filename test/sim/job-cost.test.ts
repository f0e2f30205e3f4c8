import { describe, expect, it, vi } from 'vitest';
import { stepFunctionsPerJob } from '../../shared/simulation/cost/alternatives.js';
import type { Context } from 'aws-lambda';
import { ACCESS_LOG_BYTES_PER_REQUEST, APP_LOG_BYTES_PER_LINE, PLATFORM_LOG_BYTES_PER_INVOCATION, PRICES, XRAY_TRACED_SHARE } from '../../shared/simulation/cost/prices.js';
import { logger, PowertoolsTelemetry } from '../../shared/telemetry/powertools.js';
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

  it('Vigil pays for the lines it logs, Lambda’s own records only when kept, an access-log line per API Gateway request, and traces when deployed with tracing', () => {
    const perGb = PRICES.cloudWatchLogsPerGb;
    const invocations = { ...NO_USAGE, lambdaInvocations: 1_000_000 };
    // JSON logs at system level WARN: an invocation that logs nothing costs no log
    expect(priceOf(invocations).observability).toBe(0);
    const platform = ((1_000_000 * PLATFORM_LOG_BYTES_PER_INVOCATION) / 1e9) * perGb;
    expect(priceOf(invocations, { platformLogs: true }).observability).toBeCloseTo(platform, 9);
    expect(priceOf(invocations, { platformLogs: true }).total).toBeCloseTo(priceOf(invocations).lambda + platform, 9);
    expect(priceOf(invocations, { tracing: true }).observability).toBeCloseTo(1_000_000 * XRAY_TRACED_SHARE * PRICES.xRayPerTrace, 9);
    const lines = { ...NO_USAGE, appLogLines: 1_000_000 };
    expect(priceOf(lines).total).toBeCloseTo(((1_000_000 * APP_LOG_BYTES_PER_LINE) / 1e9) * perGb, 9);
    const workerCalls = { ...NO_USAGE, apiRequestsWorker: 1_000_000 };
    expect(priceOf(workerCalls).observability).toBeCloseTo(((1_000_000 * ACCESS_LOG_BYTES_PER_REQUEST) / 1e9) * perGb, 9);
    // Function URLs write no access log and bill no request
    expect(priceOf(workerCalls, { workerFunctionUrl: true }).total).toBe(0);
  });

  it('a line Vigil logs on Lambda is one JSON record with the level and timestamp Lambda’s level filter reads, and no bigger than the model prices', () => {
    // Arrange: the logger as a Lambda invocation leaves it, with the longest names a deployed function has
    const name = 'Vigil-ap-southeast-2-CompleteWorkflowHandlerA1B2C3D4-AbCdEfGhIjKl';
    logger.addContext({
      functionName: name,
      functionVersion: '$LATEST',
      invokedFunctionArn: `arn:aws:lambda:ap-southeast-2:123456789012:function:${name}`,
      memoryLimitInMB: '512',
      awsRequestId: 'c793869b-ee49-415b-a5b6-4fd21e8dedac',
    } as Context);
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // Act: the decision line a timer writes
      new PowertoolsTelemetry().info('job timed out', { jobId: '9b2f7c1e-3d4a-4e5b-8c6d-7e8f9a0b1c2d', region: 'ap-southeast-2', fenceToken: 12, reason: 'stuck' });
    } finally {
      write.mockRestore();
      logger.resetKeys();
    }
    // Assess
    expect(written).toHaveLength(1);
    const line = written[0] ?? '';
    const record = JSON.parse(line) as Record<string, unknown>;
    expect(record['level']).toBe('INFO');
    expect(new Date(String(record['timestamp'])).toISOString()).toBe(record['timestamp']);
    expect(Buffer.byteLength(line) + 26).toBeLessThanOrEqual(APP_LOG_BYTES_PER_LINE);
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
