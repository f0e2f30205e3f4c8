import { getGateJob } from '../../shared/app/gate/get-gate-job.js';
import { jobPath } from '../../shared/contract/manager-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ path: jobPath }).handle(async ({ path }) => ok(await getGateJob(await gate(), path.jobId)));
