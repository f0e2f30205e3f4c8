import { DynamoGateStore } from '../../../shared/adapters/aws/dynamo-gate-store.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { GATE_REGION } from '../../support/fixtures.js';
import { RecordingBus, RecordingTelemetry, RecordingTimers, type ManualClock } from './recording-ports.js';
import { testGateCursors, type TestDynamo } from './test-manager.js';

/** A gate on its own table of `dynamo`, over `regions`, on `clock`; recording timers, bus and telemetry unless `overrides` gives its own. */
export function testGateDeps(dynamo: TestDynamo, tableName: string, regions: GateDeps['regions'], clock: ManualClock, overrides: Partial<GateDeps> = {}): GateDeps {
  return {
    gateRegion: GATE_REGION,
    gates: new DynamoGateStore(dynamo.doc, tableName, () => clock.now()),
    regions,
    timers: new RecordingTimers(),
    bus: new RecordingBus(),
    clock,
    policy: defaultGatePolicy,
    telemetry: new RecordingTelemetry(),
    cursors: testGateCursors(),
    ...overrides,
  };
}
