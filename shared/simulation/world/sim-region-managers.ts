import { parseAnswer } from '../../adapters/aws/lambda-region-managers.js';
import type { ManagerDeps } from '../../app/manager-deps.js';
import { submitJob } from '../../app/submit-job.js';
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
    if (!manager || world.severed(region)) return { outcome: 'unreachable', message: `${region} is cut off from the gate` };
    world.calls.lambda(`${region}:submit-from-gate`);
    const caller = world.invocation;
    world.invocation = { crashAfterWrite: world.rng.chance(world.plan.rates.crash), wrote: false };
    try {
      const result = await submitJob(manager.deps, submitFromGateBody.parse(submission));
      return parseAnswer({ statusCode: result.created ? 201 : 200, body: result.view });
    } catch (error) {
      const { statusCode, body, unexpected } = errorResponse(error);
      return unexpected ? { outcome: 'unreachable', message: (error as Error).message } : parseAnswer({ statusCode, body });
    } finally {
      world.invocation = caller;
    }
  }
}
