import { setTimeout as sleep } from 'node:timers/promises';
import type { AttemptHandle } from '../sdk/agent.js';
import { VigilApiError, VigilUnreachableError } from '../sdk/errors.js';
import type { ChildFiles } from './child-files.js';
import { childEnvironment } from './child-environment.js';
import { groupArgv, spawnGroup } from './process-group.js';
import { argumentListTooLongReason, commandLineProblem, isArgumentListTooLong } from './command-line-limits.js';
import { stopGroup } from './stop-group.js';
import { sendUntil, untilAnswered } from './until-answered.js';
import { ASK_AT_DEADLINE_MS, settledBy, superviseHearingVigil } from './ask-at-deadline.js';
import { whySignalled } from './why-signalled.js';

export interface ItemCommand {
  index: number;
  type: string;
  argv: string[];
  limitSeconds: number | null | undefined;
  /** Whether Vigil knows this command (a template step): its start and finish are reported. */
  reported: boolean;
  /** Why its command line cannot be made for this item (a placeholder the item cannot fill): the item fails before any command starts. */
  cannotStart?: string;
}

export interface ItemRunContext {
  endpoint: string;
  /** The region's worker URL, when the attempt's calls go there: the child gets it too. */
  workerEndpoint?: string | undefined;
  /** Used when Vigil cannot say `terminateBy` (it did not answer at the deadline): seed 003's default 30 s. */
  graceSeconds: number;
  log: (line: string) => void;
  /** Aborted when the runner itself is told to stop: a child that then exits was stopped, not failed. */
  stopping?: AbortSignal;
}

export type ItemOutcome = 'succeeded' | 'failed' | 'terminated';

/** How long the runner waits for Vigil to say `terminate` on an attempt it ended between two calls. */
const CONFIRM_MS = 10_000;

/**
 * Runs one claimed item's commands, each as a child in its own process group: start/finish
 * reported, checkpoints forwarded, and on `terminate` (or a deadline Vigil did not answer about)
 * SIGTERM → wait until terminateBy → SIGKILL, then `terminated` with the cleanup and partial result.
 * `files`: the item's own, made before its claim (the caller removes them).
 */
export async function runPoolItem(attempt: AttemptHandle, commands: readonly ItemCommand[], files: ChildFiles, context: ItemRunContext): Promise<ItemOutcome> {
  const { claim, vigilClock } = attempt;
  attempt.onCheckpointRequested(() => files.requestCheckpoint());
  attempt.onCheckpointRequestClosed(() => files.clearCheckpointRequest());
  const forwardCheckpoint = async () => {
    const written = files.changed(files.checkpoint) as { state?: unknown; progress?: number } | undefined;
    if (written === undefined) return;
    const isWrapped = written !== null && typeof written === 'object' && 'state' in written;
    try {
      await attempt.checkpoint(isWrapped ? written.state : written, isWrapped && typeof written.progress === 'number' ? written.progress : undefined);
    } catch (error) {
      // Unanswered (an outage): sent again on a later tick. Lost, the request would stay open and count as a miss.
      if (error instanceof VigilUnreachableError) files.unread(files.checkpoint);
      throw error;
    }
    files.clearCheckpointRequest();
  };
  const env = childEnvironment({
    ...files.env(),
    VIGIL_ENDPOINT: context.endpoint,
    ...(context.workerEndpoint !== undefined ? { VIGIL_WORKER_ENDPOINT: context.workerEndpoint } : {}),
    VIGIL_POOL: attempt.poolId,
    VIGIL_ITEM: claim.itemId,
    VIGIL_ATTEMPT: String(claim.attempt),
    VIGIL_TOKEN: claim.token,
    VIGIL_ITEM_INPUT: JSON.stringify(claim.input ?? null),
  });
  /** Vigil gave the item to a later attempt, or this one is over: nothing it reports counts any more. */
  const attemptOver = (error: unknown): ItemOutcome => {
    if (!(error instanceof VigilApiError && ATTEMPT_REFUSED_FOR_GOOD.has(error.code))) throw error;
    context.log(`item ${claim.itemId}: attempt ${claim.attempt} is over (${error.code}); moving on`);
    return 'terminated';
  };
  const reportTerminated = (cleanup: 'completed' | 'failed'): Promise<ItemOutcome> =>
    untilAnswered((signal) => attempt.terminated(cleanup, files.read(files.result), { signal }), reportDeadline(attempt), context.log).then((): ItemOutcome => 'terminated', attemptOver);
  const reportComplete = (outcome: 'succeeded' | 'failed', result: unknown = files.read(files.result)): Promise<void> =>
    untilAnswered((signal) => attempt.complete(outcome, result, { signal }), reportDeadline(attempt), context.log);
  /** A command exec refuses (the item filled in makes its command line unusable) fails the item with the reason, never as a command not found. */
  const failUnstartable = async (command: ItemCommand, reason: string, startReported: boolean): Promise<ItemOutcome> => {
    const message = `command ${command.index} (${command.type}) cannot start: ${reason}`;
    context.log(`item ${claim.itemId}: ${message}`);
    if (startReported) await untilAnswered((signal) => attempt.finishCommand(command.index, 'failed', { signal }), reportDeadline(attempt), context.log);
    const resultSoFar = files.read(files.result);
    await reportComplete('failed', { error: { code: 'command_cannot_start', message }, ...(resultSoFar !== undefined ? { resultSoFar } : {}) });
    return 'failed';
  };
  const graceMs = context.graceSeconds * 1000;
  /** The runner was told to stop (Ctrl-C): the item goes back to the pool for another agent. */
  const runnerStopped = (cleanup: 'completed' | 'failed'): Promise<ItemOutcome> => {
    context.log(`item ${claim.itemId}: runner stopping; reporting terminated`);
    return reportTerminated(cleanup);
  };
  /** Vigil ended the attempt between two calls (a timeout while no child ran, `why`): say so and stop. */
  const endedByVigil = async (why: string): Promise<ItemOutcome> => {
    context.log(`item ${claim.itemId}: ${why}; reporting terminated`);
    await confirmTimeout(attempt, Date.now() + graceMs);
    return reportTerminated('completed');
  };
  try {
    return await runCommands();
  } catch (error) {
    if (isRefusal(error, 'attempt_terminating')) return await endedByVigil(`Vigil ended attempt ${claim.attempt}`);
    return attemptOver(error);
  } finally {
    attempt.stop();
  }

  async function runCommands(): Promise<ItemOutcome> {
    const unfillable = commands.find((command) => command.cannotStart !== undefined);
    if (unfillable?.cannotStart !== undefined) return failUnstartable(unfillable, unfillable.cannotStart, false);
    for (const command of commands) {
      // Told to stop before this command (even while the claim was in flight): nothing more starts.
      if (context.stopping?.aborted) return runnerStopped('completed');
      // Vigil ended the attempt already: no child is started only to be stopped.
      if (attempt.signal.aborted) return endedByVigil(whySignalled(attempt.signal.reason, 'terminate'));
      const [program = 'sh', ...args] = command.argv;
      // Found before the start is reported: the command never runs.
      const unstartable = commandLineProblem(groupArgv(program, args), env);
      if (unstartable !== undefined) return failUnstartable(command, unstartable, false);
      const started = command.reported
        ? await untilAnswered((signal) => attempt.startCommand(command.index, command.type, { signal }), reportDeadline(attempt), context.log)
        : { deadlineAtMs: undefined };
      // Told to stop while Vigil answered the start: the stop's SIGTERM went out before this child could get it.
      if (context.stopping?.aborted) return runnerStopped('completed');
      const startedAt = Date.now();
      const ownLimitMs = command.limitSeconds ? startedAt + command.limitSeconds * 1000 : undefined;
      // Vigil's deadlines come when Vigil's clock reads them (its answers tell where it stands), read anew every tick.
      const deadlineMs = () => earliest(vigilClock.localMsOf(started.deadlineAtMs) ?? ownLimitMs, vigilClock.localMsOf(attempt.deadlineAtMs));
      context.log(`item ${claim.itemId} attempt ${claim.attempt}: command ${command.index} (${command.type}) ${shownArgv(command.argv)}`);
      let group;
      try {
        group = spawnGroup(program, args, env, graceMs);
      } catch (error) {
        // The total's limit (ARG_MAX) is the system's to tell: spawn's E2BIG says it was passed.
        if (!isArgumentListTooLong(error)) throw error;
        return failUnstartable(command, argumentListTooLongReason(groupArgv(program, args), env), command.reported);
      }
      const end = await superviseHearingVigil(group, {
        signal: attempt.signal,
        ...(context.stopping ? { stopping: context.stopping } : {}),
        deadlineMs,
        onTick: forwardCheckpoint,
        ask: () => attempt.heartbeat(),
        askUntilMs: (atMs) => atMs + Math.min(ASK_AT_DEADLINE_MS, graceMs),
      });
      if (end.kind === 'stop') {
        if (end.cause === 'operator') {
          // The runner's own stop sent the group SIGTERM: what is left at the grace period's end is killed,
          // or at Vigil's terminateBy when it says terminate meanwhile, past which the item may be another agent's.
          const killAtMs = () => Math.min(end.atMs + graceMs, vigilClock.localMsOf(attempt.terminateByMs) ?? Infinity);
          const resolution = await stopGroup(group, killAtMs, { alreadyTerminated: true });
          return runnerStopped(resolution === 'graceful' ? 'completed' : 'failed');
        }
        // Without Vigil's terminateBy (it did not answer) the grace period runs from the deadline: the
        // child never outlives the deadline it learned plus the grace period.
        const terminateByMs = vigilClock.localMsOf(attempt.terminateByMs) ?? Math.min(end.atMs, deadlineMs() ?? end.atMs) + graceMs;
        context.log(`item ${claim.itemId}: ${end.cause === 'vigil' ? whySignalled(attempt.signal.reason, 'terminate') : 'deadline passed and Vigil did not answer'}; SIGTERM to group ${group.pid}, SIGKILL at ${new Date(terminateByMs).toISOString()}`);
        const resolution = await stopGroup(group, terminateByMs);
        context.log(`item ${claim.itemId}: child group ${group.pid} gone (${resolution})`);
        await forwardCheckpoint().catch(() => undefined);
        return reportTerminated(resolution === 'graceful' ? 'completed' : 'failed');
      }
      await forwardCheckpoint().catch(() => undefined);
      // The runner's SIGTERM ended the child.
      if (context.stopping?.aborted) return runnerStopped('completed');
      const outcome = end.code === 0 ? 'succeeded' : 'failed';
      if (command.reported) await untilAnswered((signal) => attempt.finishCommand(command.index, outcome, { signal }), reportDeadline(attempt), context.log);
      if (outcome === 'failed') {
        await reportComplete('failed');
        return 'failed';
      }
    }
    await reportComplete('succeeded');
    return 'succeeded';
  }
}

/** A command line as logged: an item filled in may be long, and the log shows its start. */
const SHOWN_ARGV_CHARS = 500;
function shownArgv(argv: readonly string[]): string {
  const line = argv.join(' ');
  return line.length <= SHOWN_ARGV_CHARS ? line : `${line.slice(0, SHOWN_ARGV_CHARS)}… (${line.length} characters)`;
}

const earliest = (...times: Array<number | undefined>): number | undefined => {
  const known = times.filter((t): t is number => t !== undefined);
  return known.length > 0 ? Math.min(...known) : undefined;
};

/** Refusals no later call of the attempt can get past (the SDK stops the attempt on them too): the runner claims on. */
const ATTEMPT_REFUSED_FOR_GOOD: ReadonlySet<string> = new Set(['stale_attempt', 'item_not_found', 'pool_not_found', 'invalid_token', 'missing_token']);

const isRefusal = (error: unknown, code: string): error is VigilApiError => error instanceof VigilApiError && error.code === code;

/** Until when an outcome is worth offering: past the attempt's end (on Vigil's clock) Vigil has decided it without one. */
const reportDeadline = (attempt: AttemptHandle): number => sendUntil(attempt.vigilClock.localMsOf(attempt.terminateByMs ?? attempt.deadlineAtMs));

/**
 * Heartbeats until Vigil says `terminate` too, or until `untilMs` (at most CONFIRM_MS): it may be
 * unreachable, or hang, and the SIGKILL that follows must not wait for it.
 */
async function confirmTimeout(attempt: AttemptHandle, untilMs: number): Promise<void> {
  const until = Math.min(untilMs, Date.now() + CONFIRM_MS);
  while (!attempt.signal.aborted && Date.now() < until) {
    await settledBy(attempt.heartbeat(), until);
    if (!attempt.signal.aborted) await sleep(Math.max(0, Math.min(250, until - Date.now())));
  }
}
