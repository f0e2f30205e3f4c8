import { DynamoGateStore } from '../../adapters/aws/dynamo-gate-store.js';
import { DynamoHistoryStore } from '../../adapters/aws/dynamo-history-store.js';
import { DynamoPoolStore } from '../../adapters/aws/dynamo-pool-store.js';
import { DynamoJobStore } from '../../adapters/aws/dynamo-job-store.js';
import { ensureTable } from '../../adapters/aws/jobs-table.js';
import { GATE } from '../../adapters/local/event-routes.js';
import { fireGateTimer } from '../../app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../app/gate/gate-deps.js';
import { onManagerReport } from '../../app/gate/on-manager-report.js';
import { fireJobTimer } from '../../app/fire-job-timer.js';
import type { ManagerDeps } from '../../app/manager-deps.js';
import { onGateDecision } from '../../app/on-gate-decision.js';
import { PageCursors } from '../../app/page-cursors.js';
import { WorkflowTokens } from '../../app/workflow-tokens.js';
import { defaultGatePolicy } from '../../domain/gate/gate-policy.js';
import { defaultTimeoutPolicy } from '../../domain/policy.js';
import { parseGateDecision } from '../../../functions/events/on-gate-decision.js';
import { parseReport } from '../../../functions/gate-events/on-manager-report.js';
import { startDynaliteStore } from '../dynamo/dynalite-store.js';
import { MemoryDynamo } from '../dynamo/memory-dynamo.js';
import type { SimStore, StoreHooks, StoreKind } from '../dynamo/sim-store.js';
import { firePoolTimerChecked } from '../pools/fire-pool-timer-checked.js';
import { withSeededClaims } from '../pools/seeded-claims.js';
import { instantPauses, noRealTime } from './instant-pauses.js';
import { SimBus, type Consumer } from './sim-bus.js';
import { SimContainers } from './sim-containers.js';
import { SimRegionManagers } from './sim-region-managers.js';
import { SimTimers } from './sim-timers.js';
import { SilentTelemetry } from './silent-telemetry.js';
import { withStaleFenceCheck } from './stale-guard.js';
import type { World } from './world.js';

export const JOBS_TABLE = 'vigil-jobs';
export const GATE_TABLE = 'vigil-gate';

export class GateDown extends Error {
  constructor() {
    super('the gate is down');
    this.name = 'GateDown';
  }
}

/** A node's store, with an uncounted observer view for the invariant checks. */
export interface SimNode<Deps> {
  name: string;
  dynamo: SimStore;
  deps: Deps;
}

export interface SimNodes {
  regions: Map<string, SimNode<ManagerDeps> & { observe: DynamoJobStore; observePools: DynamoPoolStore; containers: SimContainers }>;
  gate: SimNode<GateDeps> & { observe: DynamoGateStore };
}

const eventOf = (event: { detailType: string; detail: unknown }) => ({ 'detail-type': event.detailType, detail: event.detail });

/** The gate lives in the first region; each region manager in its own. */
export async function buildNodes(world: World, storeKind: StoreKind = 'memory'): Promise<SimNodes> {
  const consumers = new Map<string, Consumer>();
  const regionOf = (node: string) => (node === GATE ? (world.plan.regions[0] ?? node) : node);
  // Drawn only when lag is on, so a run without it draws the same numbers on either store.
  const lag = () => (world.plan.rates.indexLagMaxMs > 0 ? world.rng.int(0, world.plan.rates.indexLagMaxMs) : 0);
  const store = async (node: string, tableName: string, withWorkerIndex: boolean) => {
    const hooks: StoreHooks = {
      beforeCall: (writes) => {
        world.spendCallTime();
        return world.invocations.beforeStoreCall(node, writes);
      },
    };
    const dynamo: SimStore = storeKind === 'dynalite' ? await startDynaliteStore(hooks) : new MemoryDynamo({ now: () => world.now, indexLagMs: lag, ...hooks });
    await ensureTable(dynamo.client, tableName, withWorkerIndex);
    return dynamo;
  };
  const regions: SimNodes['regions'] = new Map();
  for (const name of world.plan.regions) {
    const dynamo = await store(name, JOBS_TABLE, true);
    const observe = new DynamoJobStore(dynamo.observer, JOBS_TABLE);
    const read = (jobId: string) => observe.getJob(jobId);
    const observePools = new DynamoPoolStore(dynamo.observer, JOBS_TABLE);
    const containers = new SimContainers(world, name);
    const deps: ManagerDeps = {
      region: name,
      managerId: `${name}/sim`,
      jobs: new DynamoJobStore(dynamo.doc, JOBS_TABLE),
      pools: withSeededClaims(new DynamoPoolStore(dynamo.doc, JOBS_TABLE, () => world.rng.next()), world.rng),
      timers: new SimTimers(world, name, (timer) =>
        timer.scope === 'pool'
          ? firePoolTimerChecked(world, observePools, deps, timer)
          : withStaleFenceCheck(world, read, { ...timer, what: 'a wake-up' }, () => fireJobTimer(deps, timer)),
      ),
      bus: new SimBus(world, name, consumers),
      clock: world.clock,
      policy: defaultTimeoutPolicy,
      tokens: new WorkflowTokens(containers),
      cursors: new PageCursors(containers),
      telemetry: new SilentTelemetry(world.calls),
      stopwatch: instantPauses(noRealTime),
      // As deployed: the decision history and the jobs list are written beside the state (and counted).
      history: new DynamoHistoryStore(dynamo.doc, JOBS_TABLE, () => world.now),
    };
    consumers.set(name, async (event) => {
      const decision = parseGateDecision(eventOf(event));
      const fence = 'fenceToken' in decision.detail ? { fenceToken: decision.detail.fenceToken } : {};
      await withStaleFenceCheck(world, read, { jobId: decision.detail.jobId, ...fence, what: decision.kind }, () => onGateDecision(deps, decision));
    });
    regions.set(name, { name, dynamo, deps, observe, observePools, containers });
  }

  const gateDynamo = await store(GATE, GATE_TABLE, false);
  const whileUp = async (run: () => Promise<void>) => {
    if (world.gateDown()) throw new GateDown();
    await run();
  };
  const gateDeps: GateDeps = {
    gateRegion: regionOf(GATE),
    gates: new DynamoGateStore(gateDynamo.doc, GATE_TABLE, () => world.now),
    regions: new SimRegionManagers(world, regions),
    timers: new SimTimers(world, GATE, (timer) => whileUp(() => fireGateTimer(gateDeps, timer))),
    bus: new SimBus(world, GATE, consumers),
    clock: world.clock,
    policy: defaultGatePolicy,
    telemetry: new SilentTelemetry(world.calls),
    stopwatch: instantPauses(noRealTime),
    history: new DynamoHistoryStore(gateDynamo.doc, GATE_TABLE, () => world.now),
    cursors: new PageCursors(Buffer.from(`simulated gate key ${world.plan.seed}`)),
  };
  consumers.set(GATE, (event) => whileUp(() => onManagerReport(gateDeps, parseReport(eventOf(event)))));
  return {
    regions,
    gate: { name: GATE, dynamo: gateDynamo, deps: gateDeps, observe: new DynamoGateStore(gateDynamo.observer, GATE_TABLE, () => world.now) },
  };
}
