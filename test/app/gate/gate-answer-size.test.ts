import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { getJobTokens } from '../../../shared/app/get-job-tokens.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { gateSubmitJobBody } from '../../../shared/contract/gate-requests.js';
import type { RegionManagers } from '../../../shared/ports/region-managers.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { T0 } from '../../support/fixtures.js';
import { ManualClock } from '../support/recording-ports.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { testGateDeps } from '../support/test-gate-deps.js';

const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-west-2', 'eu-central-1', 'ap-northeast-1', 'sa-east-1'];
/** The longest IAM principal ARN (613 characters), which every token carries. */
const TENANT = `arn:aws-us-gov:iam::123456789012:user/${'team/'.repeat(102)}/${'u'.repeat(64)}`;
const WORKFLOWS_PER_REGION = 1_000;
const longId = (prefix: string, i: number) => `${prefix}${String(i).padStart(6, '0')}`.padEnd(128, 'x');

describe('the gate’s submit answer fits Lambda’s 6 MB for any caller and any number of regions, and no token is lost to it (a review finding: 7 regions and a long tenant made 7 MB) (dynalite)', () => {
  let dynamo: TestDynamo;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());

  it('7 regions × 1,000 workflows of 128-character ids, by the longest IAM ARN: the answer fits, and each region’s relayed tokens and its own token pages from the cursor give every workflow exactly once', async () => {
    // Prepare
    const managers = new Map<string, TestManager>();
    for (const region of REGIONS) managers.set(region, await testManager(dynamo));
    const manager = (region: string) => managers.get(region) as TestManager;
    const regions = {
      regions: REGIONS,
      async submit(region, submission) {
        const { view } = await submitJob(manager(region).deps, submission);
        return { outcome: 'accepted', body: view };
      },
    } as RegionManagers;
    const clock = new ManualClock(T0);
    const deps = testGateDeps(dynamo, await dynamo.table(false), regions, clock);
    const body = {
      jobId: 'j'.repeat(128),
      timeoutSeconds: 600,
      datacenters: Object.fromEntries(
        REGIONS.map((region) => [
          region,
          { workflows: Array.from({ length: WORKFLOWS_PER_REGION }, (_, i) => ({ workflowId: longId(`wf-${region}-`, i), workerId: longId(`w-${region}-`, i) })) },
        ]),
      ),
    };
    expect(gateSubmitJobBody.safeParse(body).success).toBe(true);
    // Act
    const { view } = await submitGateJob(deps, body, TENANT);
    // Assess: the answer as the Lambda proxy envelope carries it (the body as an escaped string)
    const envelope = JSON.stringify({ statusCode: 201, headers: { 'content-type': 'application/json' }, body: JSON.stringify(view) });
    const bytes = Buffer.byteLength(envelope, 'utf8');
    expect(bytes, `a ${(bytes / 1024 / 1024).toFixed(2)} MB answer`).toBeLessThan(6 * 1024 * 1024);
    for (const region of REGIONS) {
      const relayed = view.datacenters[region] as { workflows: Array<{ workflowId: string; token: string }>; nextCursor?: string };
      expect(relayed.workflows.length, region).toBeLessThan(WORKFLOWS_PER_REGION);
      const tokens = [...relayed.workflows];
      for (let cursor = relayed.nextCursor; cursor !== undefined; ) {
        const page = await getJobTokens(manager(region).deps, body.jobId, cursor, TENANT);
        tokens.push(...page.workflows);
        cursor = page.nextCursor;
      }
      expect(tokens.map((t) => t.workflowId), region).toEqual(body.datacenters[region]?.workflows.map((w) => w.workflowId));
      // Every token, relayed or paged, is the one the region issues for that workflow
      const tokenOf = new Map(tokens.map((t) => [t.workflowId, t.token]));
      const firstPage = await getJobTokens(manager(region).deps, body.jobId, undefined, TENANT);
      for (const { workflowId, token } of firstPage.workflows) expect(tokenOf.get(workflowId)).toBe(token);
      // A region's own page of 1,000 such tokens, as job-views.ts sizes it
      expect(Buffer.byteLength(JSON.stringify(firstPage))).toBeLessThan(1.6 * 1024 * 1024);
    }
  }, 120_000);
});
