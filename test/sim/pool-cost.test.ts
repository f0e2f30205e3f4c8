import { describe, expect, it } from 'vitest';
import { stepFunctionsPoolPerItem, temporalPoolPerItem } from '../../shared/simulation/cost/alternatives.js';
import { agentHeartbeatMs, measurePool, POOL_WORKLOAD, worstGraceLeftMs } from '../../shared/simulation/cost/pool-workload.js';
import { PRICES } from '../../shared/simulation/cost/prices.js';

describe('the agent pool in the cost model', () => {
  it('prices Step Functions per transition and Temporal per action by the stated formulas', () => {
    // 1,000 items, one command: 3 + 1,000 × 2 transitions; heartbeats recorded every 48 s over 4 min: 1 + 1,000 × 1 × (1 + 5) actions
    const sfn = stepFunctionsPoolPerItem(POOL_WORKLOAD);
    const temporal = temporalPoolPerItem(POOL_WORKLOAD);
    expect(sfn.transitions * POOL_WORKLOAD.items).toBeCloseTo(2_003);
    expect(temporal.actions * POOL_WORKLOAD.items).toBeCloseTo(6_001);
    expect(sfn.usd).toBeCloseTo(sfn.transitions * PRICES.stepFunctionsStandardPerTransition, 12);
    expect(stepFunctionsPoolPerItem(POOL_WORKLOAD, 2).transitions).toBeCloseTo(0.003 + 4);
  });

  it("the agents beat at the cadence the pool's claims answer, and a slower heartbeat lever leaves less of the cleanup grace period to an agent told to stop", () => {
    // The workload's 30 s grace period (the default) and 60 s checkpoint timeout: a beat every 10 s, a third of the grace period
    expect(agentHeartbeatMs(POOL_WORKLOAD)).toBe(10_000);
    // The grace period less a whole heartbeat in the worst case
    expect(worstGraceLeftMs(POOL_WORKLOAD)).toBe(20_000);
    expect(worstGraceLeftMs({ ...POOL_WORKLOAD, heartbeatIntervalMs: 5_000 })).toBe(25_000);
    expect(worstGraceLeftMs({ ...POOL_WORKLOAD, heartbeatIntervalMs: 30_000 })).toBe(0);
    expect(worstGraceLeftMs({ ...POOL_WORKLOAD, heartbeatIntervalMs: 60_000 })).toBe(0);
  });

  it('measures Vigil per item in the simulator: the agent calls, the writes and the timers each item causes', async () => {
    // Prepare: a small pool of the same shape (the report runs the full 1,000 items)
    const workload = { ...POOL_WORKLOAD, items: 20, agents: 5 };
    // Act
    const { perItem, agentCallsPerItem } = await measurePool(workload);
    // Assess: claim, command start and finish, complete, and a heartbeat every 10 s (the pool's cadence,
    // the SDK's default) of 4 min; at most the beat after each checkpoint request opens, two checkpoints
    // and the idle agents' calls more
    expect(agentCallsPerItem).toBeGreaterThanOrEqual(4 + 24);
    expect(agentCallsPerItem).toBeLessThanOrEqual(4 + 24 + 5);
    expect(perItem.apiRequestsWorker + perItem.apiRequestsClient).toBeGreaterThanOrEqual(agentCallsPerItem);
    // A claim is a signed client call: on a deployed worker URL it still goes through API Gateway
    expect(perItem.apiRequestsClient).toBeGreaterThanOrEqual(1);
    expect(perItem.apiRequestsWorker).toBeGreaterThanOrEqual(3 + 24);
    expect(perItem.dynamoWriteUnits).toBeGreaterThanOrEqual(4);
    expect(perItem.sqsRequests).toBeGreaterThan(0);
  });
});
