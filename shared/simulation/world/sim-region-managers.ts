import { GATE } from '../../adapters/local/event-routes.js';
import { parseAnswer } from '../../adapters/aws/lambda-region-managers.js';
import type { ManagerDeps } from '../../app/manager-deps.js';
import { submitFromGate } from '../../app/submit-from-gate.js';
import { submitFromGateBody, type SubmitFromGateBody } from '../../contract/manager-requests.js';
import { errorResponse } from '../../http/error-response.js';
import type { RegionManagers, RegionSubmitResult } from '../../ports/region-managers.js';
import type { World } from './world.js';

/**
 * The gate's fan-out as a direct Lambda invoke of each region's submit-from-gate: answered like
 * the handler answers (status + body), unreachable while the region is cut off or the call crashed.
 */
export class SimRegionManagers implements RegionManagers {
  readonly regions: readonly string[];

  constructor(
    private readonly world: World,
    private readonly managers: ReadonlyMap<string, { deps: ManagerDeps }>,
  ) {
    this.regions = [...managers.keys()];
  }

  async submit(region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult> {
    const world = this.world;
    const manager = this.managers.get(region);
    world.invocations.refuseIfDead(GATE);
    if (!manager || world.severed(region)) return { outcome: 'unreachable', message: `${region} is cut off from the gate` };
    world.calls.lambda(`${region}:submit-from-gate`);
    try {
      const result = await world.invocations.run(region, 'submit-from-gate', () => submitFromGate(manager.deps, submitFromGateBody.parse(submission)));
      return parseAnswer({ statusCode: result.created ? 201 : 200, body: result.body });
    } catch (error) {
      const { statusCode, body, unexpected } = errorResponse(error);
      return unexpected ? { outcome: 'unreachable', message: (error as Error).message } : parseAnswer({ statusCode, body });
    }
  }
}
