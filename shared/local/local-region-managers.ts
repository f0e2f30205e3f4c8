import type { LocalEventNetwork } from '../adapters/local/local-event-network.js';
import { GATE } from '../adapters/local/event-routes.js';
import { parseAnswer } from '../adapters/aws/lambda-region-managers.js';
import type { SubmitFromGateBody } from '../contract/manager-requests.js';
import type { RegionManagers, RegionSubmitResult } from '../ports/region-managers.js';
import { localContext } from './lambda-context.js';
import { lambdaHandler } from './lambda-module.js';

const submitFromGateHandler = lambdaHandler(() => import('../../functions/internal/submit-from-gate.js'));

/** The gate's fan-out in the local cloud: the same submit-from-gate handler, invoked in-process. */
export class LocalRegionManagers implements RegionManagers {
  constructor(
    readonly regions: readonly string[],
    private readonly network: LocalEventNetwork,
  ) {}

  async submit(region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult> {
    if (this.network.isSevered(GATE, region)) return { outcome: 'unreachable', message: `${region} is cut off from the gate` };
    const handler = await submitFromGateHandler();
    try {
      return parseAnswer(await handler({ region, submission }, localContext('vigil-submit-from-gate', region)));
    } catch (error) {
      return { outcome: 'unreachable', message: (error as Error).message };
    }
  }
}
