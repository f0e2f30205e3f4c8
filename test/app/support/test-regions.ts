import { submitFromGate } from '../../../shared/app/submit-from-gate.js';
import type { SubmitFromGateBody } from '../../../shared/contract/manager-requests.js';
import type { RegionManagers, RegionSubmitResult } from '../../../shared/ports/region-managers.js';
import type { TestManager } from './test-manager.js';

export const REGIONS = ['us-east-1', 'eu-west-1'] as const;

/**
 * The real region managers (each on its own dynalite table, through the real submit use case), reached
 * as the gate reaches them; a region can be made unreachable or refusing, as a test says.
 */
export class TestRegions implements RegionManagers {
  readonly regions = [...REGIONS];
  readonly unreachable = new Set<string>();
  readonly refusing = new Set<string>();
  /** Regions that take the submission but whose answer never reaches the gate (an invoke that timed out after the write). */
  readonly answerLost = new Set<string>();
  constructor(private readonly managers: Map<string, TestManager>) {}

  async submit(region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult> {
    if (this.unreachable.has(region)) return { outcome: 'unreachable', message: `${region} timed out (injected)` };
    if (this.refusing.has(region)) return { outcome: 'refused', statusCode: 400, body: { error: { code: 'invalid_request', message: 'injected' } } };
    const manager = this.managers.get(region);
    if (!manager) throw new Error(`no manager for ${region}`);
    const { body } = await submitFromGate(manager.deps, submission);
    if (this.answerLost.has(region)) return { outcome: 'unreachable', message: `${region}'s answer was lost (injected)` };
    return { outcome: 'accepted', body };
  }
}
