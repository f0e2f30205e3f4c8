import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { SubmitFromGateBody } from '../../contract/manager-requests.js';
import type { RegionManagers, RegionSubmitResult } from '../../ports/region-managers.js';

/**
 * How long the gate waits for a region's `submit-from-gate` (which Lambda stops at 22 s) before
 * calling it unreachable: well inside the gate's own 29 s, so it still records the other answers.
 */
export const GATE_SUBMIT_WAIT_MS = 24_000;

/**
 * The gate reaches each region's manager by invoking its `submit-from-gate` function (same name
 * in every region) with a Lambda client for that region, created once per region.
 */
export class LambdaRegionManagers implements RegionManagers {
  private readonly clients = new Map<string, LambdaClient>();

  constructor(
    readonly regions: readonly string[],
    private readonly functionName: string,
  ) {}

  async submit(region: string, submission: SubmitFromGateBody): Promise<RegionSubmitResult> {
    let client = this.clients.get(region);
    if (!client) {
      client = new LambdaClient({ region });
      this.clients.set(region, client);
    }
    try {
      const answer = await client.send(
        new InvokeCommand({ FunctionName: this.functionName, Payload: Buffer.from(JSON.stringify({ region, submission })) }),
        { abortSignal: AbortSignal.timeout(GATE_SUBMIT_WAIT_MS) },
      );
      if (answer.FunctionError) return { outcome: 'unreachable', message: `submit-from-gate failed in ${region}: ${answer.FunctionError}` };
      return parseAnswer(JSON.parse(Buffer.from(answer.Payload ?? []).toString('utf8')));
    } catch (error) {
      return { outcome: 'unreachable', message: `could not invoke submit-from-gate in ${region}: ${(error as Error).message}` };
    }
  }
}

/** The function answers `{ statusCode, body }` like the HTTP route. */
export function parseAnswer(answer: { statusCode?: unknown; body?: unknown }): RegionSubmitResult {
  const statusCode = Number(answer.statusCode);
  if (statusCode === 200 || statusCode === 201) return { outcome: 'accepted', body: answer.body as Extract<RegionSubmitResult, { outcome: 'accepted' }>['body'] };
  if (statusCode >= 400 && statusCode < 500) return { outcome: 'refused', statusCode, body: answer.body };
  return { outcome: 'unreachable', message: `submit-from-gate answered ${statusCode}` };
}
