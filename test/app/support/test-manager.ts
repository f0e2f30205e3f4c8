import { ScanCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { DynamoHistoryStore } from '../../../shared/adapters/aws/dynamo-history-store.js';
import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { getJob } from '../../../shared/app/get-job.js';
import { submitJob, type SubmitInput } from '../../../shared/app/submit-job.js';
import { getJobTokens } from '../../../shared/app/get-job-tokens.js';
import { PageCursors } from '../../../shared/app/page-cursors.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import type { Job } from '../../../shared/domain/job.js';
import type { TimeoutPolicy } from '../../../shared/domain/policy.js';
import type { HistoryStore } from '../../../shared/ports/history-store.js';
import type { JobStore } from '../../../shared/ports/job-store.js';
import { installManagerResolver } from '../../../shared/wiring/manager-resolver.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { MANAGER_ID, policy, REGION, T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from './recording-ports.js';
import { jitteredBackoff } from '../../../shared/app/contention-backoff.js';
import { instantPauses } from '../../../shared/simulation/world/instant-pauses.js';

export type TestDynamo = Awaited<ReturnType<typeof startTestDynamo>>;

/** One DynamoDB call as the store made it: the document-client command name and its input. */
export interface DynamoCall {
  command: string;
  input: { Key?: { sk?: unknown }; Item?: { sk?: unknown } } & Record<string, unknown>;
}

export interface TestManager {
  deps: ManagerDeps;
  jobs: DynamoJobStore;
  clock: ManualClock;
  timers: RecordingTimers;
  bus: RecordingBus;
  telemetry: RecordingTelemetry;
  /** Every call the store sent to dynalite, in order. */
  calls: DynamoCall[];
  tableName: string;
  doc: DynamoDBDocumentClient;
  /** The dynalite under the table; its `doc` reaches the table behind the store's back, unrecorded. */
  dynamo: TestDynamo;
  /** Every item of the table (jobs, workflows, workers), for "nothing changed" checks. */
  snapshot(): Promise<Record<string, unknown>[]>;
  getJob(jobId: string): Promise<Job>;
}

const WRITE_COMMANDS = new Set(['PutCommand', 'UpdateCommand', 'DeleteCommand', 'BatchWriteCommand']);

/** The writes among `calls` that targeted a job item (sk `JOB`). */
export const jobItemWrites = (calls: readonly DynamoCall[]): DynamoCall[] =>
  calls.filter((call) => WRITE_COMMANDS.has(call.command) && (call.input.Key?.sk ?? call.input.Item?.sk) === 'JOB');

/** Every write among `calls`, by the kind of item it targeted (`JOB`, `WF`, `WORKER`, history …). */
export const writesByItem = (calls: readonly DynamoCall[]): string[] =>
  calls.filter((call) => WRITE_COMMANDS.has(call.command)).map((call) => String(call.input.Key?.sk ?? call.input.Item?.sk ?? call.command).split('#')[0] ?? '');

/** A document client whose `send` records each command before passing it on unchanged. */
function recordingDocumentClient(dynamo: TestDynamo, calls: DynamoCall[]): DynamoDBDocumentClient {
  const doc = DynamoDBDocumentClient.from(dynamo.client, { marshallOptions: { removeUndefinedValues: true } });
  const send = doc.send.bind(doc) as (command: unknown, ...rest: unknown[]) => Promise<unknown>;
  const recordingSend = (command: { constructor: { name: string }; input: DynamoCall['input'] }, ...rest: unknown[]) => {
    calls.push({ command: command.constructor.name, input: command.input });
    return send(command, ...rest);
  };
  doc.send = recordingSend as unknown as typeof doc.send;
  return doc;
}

export const TOKEN_SECRET = Buffer.from('vigil-test-token-secret');

/** The test gate's page cursors, under a key of its own (the gate signs no tokens). */
export const testGateCursors = () => new PageCursors(Buffer.from('vigil-test-gate-key'));

export interface TestManagerOptions {
  policy?: Partial<TimeoutPolicy>;
  store?: (doc: DynamoDBDocumentClient, tableName: string) => DynamoJobStore;
  /** Keep the history and the jobs list in the table, as deployed; a test may wrap the real store. */
  history?: (real: HistoryStore) => HistoryStore;
}

/**
 * A region manager over a fresh dynalite table through the real DynamoDB store. Only the clock,
 * the timers, the bus and telemetry are test doubles (and the sweep's pauses pass at once); `store`
 * lets a test wrap the real store.
 */
export async function testManager(dynamo: TestDynamo, options: TestManagerOptions = {}): Promise<TestManager> {
  const tableName = await dynamo.table();
  const calls: DynamoCall[] = [];
  const doc = recordingDocumentClient(dynamo, calls);
  const jobs = options.store ? options.store(doc, tableName) : new DynamoJobStore(doc, tableName);
  const clock = new ManualClock(T0);
  const timers = new RecordingTimers();
  const bus = new RecordingBus();
  const telemetry = new RecordingTelemetry();
  const history = options.history?.(new DynamoHistoryStore(doc, tableName, () => clock.now()));
  const deps: ManagerDeps = {
    region: REGION,
    managerId: MANAGER_ID,
    jobs,
    pools: new DynamoPoolStore(doc, tableName),
    timers,
    bus,
    clock,
    policy: policy(options.policy),
    tokens: new WorkflowTokens(TOKEN_SECRET),
    cursors: new PageCursors(TOKEN_SECRET),
    telemetry,
    backoff: jitteredBackoff,
    stopwatch: instantPauses(),
    ...(history ? { history } : {}),
  };
  return {
    deps,
    jobs,
    clock,
    timers,
    bus,
    telemetry,
    calls,
    tableName,
    doc,
    dynamo,
    async snapshot() {
      const { Items = [] } = await dynamo.doc.send(new ScanCommand({ TableName: tableName, ConsistentRead: true }));
      return Items.sort((a, b) => `${a['pk']}|${a['sk']}`.localeCompare(`${b['pk']}|${b['sk']}`));
    },
    async getJob(jobId) {
      const job = await jobs.getJob(jobId);
      if (!job) throw new Error(`job ${jobId} is not in the store`);
      return job;
    },
  };
}

/**
 * Registers the hooks of the calling describe block: one dynalite for the block, and a fresh manager
 * over a fresh table before each test. The returned object is that manager: its fields are replaced
 * before each test, so read them inside tests and hooks, never at collection time.
 */
export function useTestManager(options: TestManagerOptions = {}): TestManager {
  let dynamo: TestDynamo;
  const m = {} as TestManager;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    Object.assign(m, await testManager(dynamo, options));
  });
  return m;
}

/** `useTestManager` for the HTTP handlers: they resolve their region manager to the current test's. */
export function useHttpTestManager(): TestManager {
  const m = useTestManager();
  beforeAll(() => {
    installManagerResolver(async () => m.deps);
  });
  return m;
}

/** Another manager of the same region over the same table (a second Lambda instance). */
export function sameTable(m: TestManager, jobs: JobStore = new DynamoJobStore(m.doc, m.tableName)): ManagerDeps {
  return { ...m.deps, jobs };
}

/** Submits a job and returns the token of each workflow by workflow id, following the token pages of a large job. */
export async function submit(m: TestManager, input: SubmitInput): Promise<{ jobId: string; tokens: Record<string, string> }> {
  const { view } = await submitJob(m.deps, input);
  const pages = [view.workflows];
  for (let cursor = view.nextCursor; cursor !== undefined; ) {
    const page = await getJobTokens(m.deps, view.jobId, cursor);
    pages.push(page.workflows);
    cursor = page.nextCursor;
  }
  return { jobId: view.jobId, tokens: Object.fromEntries(pages.flat().map((w) => [w.workflowId, w.token])) };
}

export function tokenOf(submitted: { tokens: Record<string, string> }, workflowId: string): string {
  const token = submitted.tokens[workflowId];
  if (!token) throw new Error(`no token for workflow ${workflowId}`);
  return token;
}

/** What each worker adds to the job's deadline now, as `GET /jobs/{jobId}` shows it to the job's tenant. */
export async function extensionsOf(m: TestManager, jobId: string): Promise<Map<string, number>> {
  const view = await getJob(m.deps, jobId, (await m.getJob(jobId)).tenant);
  return new Map(view.timeoutTracking.workerExtensions.map((w) => [w.workerId, w.extensionSeconds]));
}
