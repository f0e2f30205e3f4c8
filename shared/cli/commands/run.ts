import { setTimeout as sleep } from 'node:timers/promises';
import { claim } from '../../sdk/agent.js';
import { DEFAULT_AGENT_HEARTBEAT_MS } from '../../sdk/agent-heartbeat.js';
import { VigilApiError, VigilUnreachableError } from '../../sdk/errors.js';
import { startWorkflow } from '../../sdk/workflow.js';
import { VigilHttp } from '../../sdk/vigil-http.js';
import { ChildFiles, withChildFiles } from '../../runner/child-files.js';
import { stopLiveGroupsOnSignals } from '../../runner/process-group.js';
import { runPoolItem, type ItemCommand, type ItemOutcome } from '../../runner/run-pool-item.js';
import { runWorkflow } from '../../runner/run-workflow.js';
import { stepArgv, templateSteps } from '../../runner/template-command.js';
import { ItemFieldMissingError } from '../../runner/item-field-missing-error.js';
import type { Claim } from '../../contract/pool-responses.js';
import { command, type Command, type Parsed } from '../command-line.js';
import { endpointOptions } from '../endpoint.js';
import { httpUrl } from '../http-url.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { isRunnable } from '../../runner/runnable.js';
import { secondsFlag } from '../seconds-flag.js';
import { workflowToken } from '../workflow-token.js';
import { MAX_DURATION_SECONDS } from '../../domain/time.js';

const FOLLOW_POLL_MS = 2_000;

const spec = {
  usage: 'vigil run --pool POOL --agent ID [--kind expert] [--once] [--follow] [-- CMD ARGS…]\n       vigil run --job JOB --workflow WF --worker ID [--token T] -- CMD ARGS…   (the token from --token, else $VIGIL_TOKEN)',
  summary:
    "Run a pool's items (or a job's workflow) as child processes, each in its own process group; heartbeat, forward checkpoints and progress, and stop the child on terminate/cancel: SIGTERM, then SIGKILL at terminateBy. See README, 'The agent runner'.",
  optionHelp: [
    '--pool POOL        claim items of this pool',
    '--agent ID         this agent\'s id',
    '--kind KIND        agent (default) or expert',
    '--once             run one item, then exit',
    '--follow           keep waiting for new items when the pool has none',
    "--claude-cmd CMD   runs claude: steps (default 'claude -p')",
    '--job JOB --workflow WF --worker ID --token T   run a job\'s workflow instead (the token may come from $VIGIL_TOKEN instead of --token, off the command line other users can read)',
    "--stuck-threshold S   the job's stuck threshold, when --endpoint cannot tell it (a region's WorkerUrl); a heartbeat after each quarter of it (at most 30 s) without a report",
    '--grace S          SIGTERM→SIGKILL grace when Vigil gives no terminateBy (default 30; at most 31536000, one year)',
    `--heartbeat S      seconds between heartbeats (default: the pool's cadence from each claim, a third of its cleanup grace period or checkpoint timeout, whichever is shorter; ${DEFAULT_AGENT_HEARTBEAT_MS / 1000} from a Vigil that does not say; at most half the checkpoint interval). Slower than the pool's cadence, a warning: a terminate or checkpoint collection may be heard too late`,
    "--worker-endpoint URL   the attempts' calls go there, claims to --endpoint (default $VIGIL_WORKER_ENDPOINT; a region's WorkerUrl)",
  ],
  options: {
    pool: { type: 'string' },
    agent: { type: 'string' },
    kind: { type: 'string' },
    once: { type: 'boolean' },
    follow: { type: 'boolean' },
    'claude-cmd': { type: 'string' },
    job: { type: 'string' },
    workflow: { type: 'string' },
    worker: { type: 'string' },
    token: { type: 'string' },
    grace: { type: 'string' },
    heartbeat: { type: 'string' },
    'worker-endpoint': { type: 'string' },
    'stuck-threshold': { type: 'string' },
  },
  positionals: [],
  longRunning: true,
} as const;

type RunFlags = Parsed<typeof spec.options>['values'];

const log = (line: string) => process.stderr.write(`vigil run: ${line}\n`);

const graceSeconds = (flags: RunFlags) => secondsFlag('grace', flags.grace, 30);

const POOL_FLAGS = ['pool', 'agent', 'kind', 'once', 'follow', 'claude-cmd', 'heartbeat', 'worker-endpoint'] as const;
const JOB_FLAGS = ['job', 'workflow', 'worker', 'token', 'stuck-threshold'] as const;

/** One mode per run: a flag of the other is a mistake, never silently ignored. */
function assertOneMode(flags: RunFlags): void {
  const given = (names: readonly (keyof RunFlags)[]) => names.filter((name) => flags[name] !== undefined).map((name) => `--${name}`);
  const pool = given(POOL_FLAGS);
  const job = given(JOB_FLAGS);
  if (pool.length > 0 && job.length > 0) {
    throw new UsageError(`${job.join(' ')} run${job.length === 1 ? 's' : ''} a job's workflow and ${pool.join(' ')} a pool's items: pass the flags of one of them.`);
  }
}

/** `vigil run …`: the flags before `--`, the child's command after it. */
export const run: Command = (argv) => {
  const dash = argv.indexOf('--');
  const childArgv = dash >= 0 ? argv.slice(dash + 1) : [];
  return command(spec, async ({ values }) => {
    assertOneMode(values);
    const stopping = stopLiveGroupsOnSignals(graceSeconds(values) * 1000);
    const program = childArgv[0];
    if (program !== undefined) assertStartable(program, 'The command after --');
    if (values.job !== undefined) return runJobWorkflow(values, childArgv, stopping);
    if (values.pool !== undefined) return runPool(values, childArgv, stopping);
    throw new UsageError('Pass --pool POOL --agent ID, or --job JOB --workflow WF --worker ID --token T -- CMD.');
  })(dash >= 0 ? argv.slice(0, dash) : argv);
};

async function runJobWorkflow(flags: RunFlags, childArgv: string[], stopping: AbortSignal): Promise<ExitCode> {
  const { job, workflow, worker } = flags;
  const token = workflowToken(flags);
  if (!job || !workflow || !worker || !token || childArgv.length === 0) {
    throw new UsageError('vigil run --job needs --workflow WF --worker ID, the token (--token T, or VIGIL_TOKEN=T in the environment, where other users cannot read it) and a command after --.');
  }
  const options = endpointOptions(flags);
  const stuckThreshold = flags['stuck-threshold'];
  const stuckThresholdSeconds = stuckThreshold !== undefined ? secondsFlag('stuck-threshold', stuckThreshold, 0, { above: 0 }) : undefined;
  // Made before the first report: a TMPDIR that is no folder fails the runner before it speaks for the workflow.
  return withChildFiles(async (files) => {
    const handle = await startWorkflow({
      ...options,
      ...(stuckThresholdSeconds !== undefined ? { stuckThresholdSeconds } : {}),
      jobId: job,
      workflowId: workflow,
      workerId: worker,
      token,
      onHeartbeatError: (error) => log(`heartbeat failed: ${String(error)}`),
    });
    const outcome = await runWorkflow(handle, childArgv, files, {
      endpoint: options.endpoint,
      jobId: job,
      workflowId: workflow,
      workerId: worker,
      token,
      graceSeconds: graceSeconds(flags),
      deadlineSlackSeconds: 5,
      log,
      stopping,
    });
    if (outcome.kind === 'completed') return ExitCode.ok;
    if (outcome.kind === 'failed') return ExitCode.failed;
    return ExitCode.timedOutOrCancelled;
  });
}

async function runPool(flags: RunFlags, childArgv: string[], stopping: AbortSignal): Promise<ExitCode> {
  const { pool, agent } = flags;
  if (!pool || !agent) throw new UsageError('vigil run --pool needs --agent ID.');
  const kind = flags.kind ?? 'agent';
  if (kind !== 'agent' && kind !== 'expert') throw new UsageError(`--kind is agent or expert, not '${kind}'.`);
  const workerEndpoint = flags['worker-endpoint'] ?? (process.env['VIGIL_WORKER_ENDPOINT'] || undefined);
  if (workerEndpoint !== undefined && !httpUrl(workerEndpoint)) {
    throw new UsageError(`--worker-endpoint '${workerEndpoint}' is not a URL. Pass the WorkerUrl output of the region's stack, e.g. https://….lambda-url.us-east-1.on.aws/.`);
  }
  const claimPatienceMs = claimPatienceFromEnv(process.env['VIGIL_CLAIM_PATIENCE_SECONDS']);
  const options = {
    ...endpointOptions(flags),
    ...(workerEndpoint !== undefined ? { workerEndpoint } : {}),
    ...(claimPatienceMs !== undefined ? { claimPatienceMs } : {}),
    // Unnamed, each attempt beats at the cadence its claim answers (the pool's).
    ...(flags.heartbeat !== undefined ? { heartbeatIntervalMs: secondsFlag('heartbeat', flags.heartbeat, 0, { above: 0 }) * 1000 } : {}),
    onHeartbeatError: (error: unknown) => log(`heartbeat failed: ${String(error)}`),
    onWarning: log,
  };
  const claudeCommand = flags['claude-cmd'] ?? 'claude -p';
  const claudeProgram = claudeCommand.split(/\s+/).find(Boolean);
  if (claudeProgram === undefined) throw new UsageError("--claude-cmd is empty: name the program that runs the template's claude: steps (default 'claude -p').");
  const template = childArgv.length > 0 ? [] : await followedThroughOutages(() => poolTemplate(new VigilHttp(options), pool), flags.follow === true, stopping);
  // Told to stop while it waited for Vigil: nothing was claimed.
  if (template === undefined) return ExitCode.ok;
  if (template.some((step) => step.type === 'claude')) assertStartable(claudeProgram, `The pool's claude: steps (--claude-cmd '${claudeCommand}')`);
  const outcomes: ItemOutcome[] = [];
  // Told to stop (Ctrl-C): no new item is claimed, so none is left claimed when the runner exits.
  while (!stopping.aborted) {
    // Made before the claim: a TMPDIR that is no folder, or a full disk, fails the runner holding no item.
    const files = new ChildFiles();
    try {
      let attempt;
      try {
        // One claimId per claim, kept across the SDK's repeats (35 s, claimPatienceMs), so a claim whose answers were lost gets the item it took.
        attempt = await claim(options, pool, agent, kind);
      } catch (error) {
        if (error instanceof VigilApiError && error.code === 'pool_finished') break;
        // The attempt a lost claim took has ended before its answer came back: nothing is held; claim anew.
        if (error instanceof VigilApiError && error.code === 'stale_attempt') {
          log(`claim's attempt ended before its answer arrived (${error.message}); claiming again`);
          continue;
        }
        // A runner that follows a pool outlasts an outage of Vigil: it holds nothing while it waits.
        if (error instanceof VigilUnreachableError && flags.follow) {
          log(`${error.message}; claiming again in ${FOLLOW_POLL_MS / 1000} s`);
          await sleep(FOLLOW_POLL_MS, undefined, { signal: stopping }).catch(() => undefined);
          continue;
        }
        throw error;
      }
      if (!attempt) {
        if (!flags.follow) break;
        await sleep(FOLLOW_POLL_MS, undefined, { signal: stopping }).catch(() => undefined);
        continue;
      }
      const commands = itemCommands(attempt.claim, childArgv, template, claudeCommand);
      try {
        outcomes.push(await runPoolItem(attempt, commands, files, { endpoint: options.endpoint, workerEndpoint, graceSeconds: graceSeconds(flags), log, stopping }));
      } catch (error) {
        // Given up at the attempt's deadline: Vigil decides the item without its outcome, and the runner holds nothing; a follower waits the outage out.
        if (!(error instanceof VigilUnreachableError && flags.follow)) throw error;
        log(`item ${attempt.claim.itemId}: its outcome was not delivered (${error.message}); Vigil decides it at its deadline. Following on`);
        outcomes.push('terminated');
      }
      if (flags.once) break;
    } finally {
      files.remove();
    }
  }
  if (outcomes.includes('failed')) return ExitCode.failed;
  if (outcomes.includes('terminated')) return ExitCode.timedOutOrCancelled;
  return ExitCode.ok;
}

/** A program that cannot start would fail every item it is given: found before anything is claimed. */
function assertStartable(program: string, what: string): void {
  if (isRunnable(program)) return;
  throw new UsageError(`${what} cannot be started: '${program}' is not an executable file${program.includes('/') ? '' : ' on PATH'}. Check its spelling, its path or PATH.`);
}

/**
 * `$VIGIL_CLAIM_PATIENCE_SECONDS`: how long one claim is repeated (the SDK's `claimPatienceMs`, default
 * 35 s). Below Vigil's 30 s takeover of an abandoned claim it gives up on a claim whose item stays
 * taken until then; tests set it short to see what a runner does once a claim gives up.
 */
function claimPatienceFromEnv(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const seconds = Number(value);
  if (value.trim() === '' || !(seconds > 0) || seconds > MAX_DURATION_SECONDS) {
    throw new UsageError(`VIGIL_CLAIM_PATIENCE_SECONDS must be a number of seconds > 0 and ≤ ${MAX_DURATION_SECONDS} (one year), not '${value}'. Unset it for the default, 35.`);
  }
  return seconds * 1000;
}

/**
 * `read`, waited out through an outage of Vigil when the runner follows the pool (its claims are too);
 * undefined when told to stop meanwhile.
 */
async function followedThroughOutages<T>(read: () => Promise<T>, follow: boolean, stopping: AbortSignal): Promise<T | undefined> {
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!(follow && error instanceof VigilUnreachableError)) throw error;
      log(`${error.message}; asking again in ${FOLLOW_POLL_MS / 1000} s`);
      await sleep(FOLLOW_POLL_MS, undefined, { signal: stopping }).catch(() => undefined);
      if (stopping.aborted) return undefined;
    }
  }
}

async function poolTemplate(http: VigilHttp, poolId: string) {
  const { body } = await http.call('GET', `/pools/${encodeURIComponent(poolId)}`);
  const steps = templateSteps((body as { config?: { agent_template?: unknown } } | undefined)?.config?.agent_template);
  if (steps.length === 0) throw new UsageError(`Pool '${poolId}' has no agent_template; pass the command to run after --.`);
  return steps;
}

/** `-- CMD` runs as the item's first command (reported when the pool has a template); else the template's steps. */
function itemCommands(claimed: Claim, childArgv: string[], template: ReturnType<typeof templateSteps>, claudeCommand: string): ItemCommand[] {
  const known = claimed.commands ?? [];
  if (childArgv.length > 0) {
    const first = known[0];
    return [{ index: 0, type: first?.type ?? 'shell', argv: childArgv, limitSeconds: first?.limitSeconds, reported: first !== undefined }];
  }
  return template.map((step, index) => {
    const command = { index, type: step.type, argv: [], limitSeconds: known[index]?.limitSeconds, reported: true };
    try {
      return { ...command, argv: stepArgv(step, claudeCommand, claimed.itemId, claimed.input) };
    } catch (error) {
      if (!(error instanceof ItemFieldMissingError)) throw error;
      return { ...command, cannotStart: error.message };
    }
  });
}
