import { submitFromGate } from '../../shared/app/submit-from-gate.js';
import { submitFromGateBody } from '../../shared/contract/manager-requests.js';
import { errorResponse } from '../../shared/http/error-response.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

/**
 * The gate's fan-out target in each region (direct invoke, not public). Answers like the HTTP
 * route, so the gate can relay a region's refusal.
 */
export const handler = lambdaHandler<{ region?: string; submission: unknown }, { statusCode: number; body: unknown }>(
  async (event) => {
    try {
      const result = await submitFromGate(await managerFor(event.region), submitFromGateBody.parse(event.submission));
      return { statusCode: result.created ? 201 : 200, body: result.body };
    } catch (error) {
      const { statusCode, body, unexpected } = errorResponse(error);
      if (unexpected) throw error;
      return { statusCode, body };
    }
  },
);
