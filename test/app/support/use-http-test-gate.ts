import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { installGateResolver } from '../../../shared/wiring/gate-resolver.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { T0 } from '../../support/fixtures.js';
import { ManualClock } from './recording-ports.js';
import { testGateDeps } from './test-gate-deps.js';
import { testManager, type TestDynamo, type TestManager } from './test-manager.js';
import { REGIONS, TestRegions } from './test-regions.js';

export interface HttpTestGate {
  dynamo: TestDynamo;
  /** A region manager per region of `REGIONS`, each on its own table. */
  managers: Map<string, TestManager>;
  gateTable: string;
  clock: ManualClock;
  deps: GateDeps;
}

/**
 * A gate over `REGIONS` on dynalite, fresh for each test, that the gate's HTTP handlers resolve to;
 * `overrides` (given the test's gate) replaces some of its deps, as `testGateDeps`'s do.
 */
export function useHttpTestGate(overrides: (gate: Omit<HttpTestGate, 'deps'>) => Partial<GateDeps> = () => ({})): HttpTestGate {
  const gate = {} as HttpTestGate;
  beforeAll(async () => {
    gate.dynamo = await startTestDynamo();
    installGateResolver(async () => gate.deps);
  });
  afterAll(() => gate.dynamo.close());
  beforeEach(async () => {
    gate.managers = new Map();
    for (const region of REGIONS) gate.managers.set(region, await testManager(gate.dynamo));
    gate.clock = new ManualClock(T0);
    gate.gateTable = await gate.dynamo.table(false);
    gate.deps = testGateDeps(gate.dynamo, gate.gateTable, new TestRegions(gate.managers), gate.clock, overrides(gate));
  });
  return gate;
}
