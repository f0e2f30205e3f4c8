import { CommandCompleted } from '../../events/pools/command-completed.js';
import { CommandStarted } from '../../events/pools/command-started.js';
import { publish } from '../effects.js';
import type { VigilError } from '../errors.js';
import { msToSeconds, toIso, type EpochMs } from '../time.js';
import { attemptEventFields } from './attempt-events.js';
import type { CallStep } from './call-step.js';
import { commandLimitSeconds, enforcesCommandDeadlines, templateCommands, type PoolConfig } from './pool-config.js';
import { CommandNotStartedError, CommandOutOfOrderError, TooManyCommandsRunningError } from './pool-errors.js';
import { ITEM_BOUNDS, type AttemptRun, type PoolItem, type RunningCommand } from './pool-item.js';
import { commandDeadlineOf, runningCommands, withRunningCommands } from './running-commands.js';

/** A command's deadline as its start answers it: its own limit (when enforced), never past the agent deadline. */
function startAnswer(run: AttemptRun, config: PoolConfig, command: RunningCommand): { deadlineAt: string | null } {
  const deadlines = [run.agentDeadlineAt, enforcesCommandDeadlines(config) ? commandDeadlineOf(command) : null].filter((at): at is number => typeof at === 'number');
  return { deadlineAt: deadlines.length > 0 ? toIso(Math.min(...deadlines)) : null };
}

/** A command call refused carries no result to keep (a start carries none; a finish of a command never started is no late result of anything). */
const refused = (item: PoolItem, refusal: VigilError): CallStep => ({ item, effects: [], reply: undefined, refusal });

/**
 * `POST …/commands/{index}/start`. Commands start once each, in order; one still running when the
 * next starts keeps its own deadline (the attempt is due at the first of them), so no agent moves
 * past a limit by starting, or restarting, a command.
 */
export function startCommand(item: PoolItem, run: AttemptRun, config: PoolConfig, index: number, claimedType: string, now: EpochMs): CallStep {
  const running = runningCommands(run);
  // A repeat (its answer was lost) keeps the command's start: restarting it would move its deadline.
  const repeated = running.find((command) => command.index === index);
  if (repeated) return { item, effects: [], reply: startAnswer(run, config, repeated) };
  const next = run.nextCommandIndex ?? 0;
  if (index < next) return refused(item, new CommandOutOfOrderError(item.itemId, run.attempt, index, next));
  if (running.length >= ITEM_BOUNDS.runningCommands) return refused(item, new TooManyCommandsRunningError(item.itemId, run.attempt, running.map((command) => command.index)));
  // A template step's type is the pool's, whatever the agent calls it: its limit cannot be chosen by the agent.
  const type = templateCommands(config)[index]?.type ?? claimedType;
  const limitSeconds = commandLimitSeconds(config, type, index, item.limitSeconds);
  const command: RunningCommand = { index, type, limitSeconds, startedAt: now };
  const started = { ...withRunningCommands(run, [...running, command]), nextCommandIndex: index + 1 };
  const timeoutSeconds = enforcesCommandDeadlines(config) ? limitSeconds : null;
  return {
    item: { ...item, run: started },
    effects: [publish(CommandStarted.build({ ...attemptEventFields(item, run, now), commandIndex: index, commandType: type, timeoutSeconds }))],
    reply: startAnswer(run, config, command),
  };
}

/** `POST …/commands/{index}/finish`: any running command may finish, the earlier ones' deadlines staying as they were. */
export function finishCommand(item: PoolItem, run: AttemptRun, index: number, outcome: 'succeeded' | 'failed', now: EpochMs): CallStep {
  const running = runningCommands(run);
  const finished = running.find((command) => command.index === index);
  if (!finished) {
    // A repeat of a finished command's finish (its answer was lost) is answered alike; one never started is refused.
    if (index < (run.nextCommandIndex ?? 0)) return { item, effects: [], reply: { state: item.state } };
    // Not a late result of anything: refused, not kept.
    return refused(item, new CommandNotStartedError(item.itemId, run.attempt, index));
  }
  const stillRunning = running.filter((command) => command !== finished);
  return {
    item: { ...item, run: withRunningCommands(run, stillRunning) },
    effects: [
      publish(
        CommandCompleted.build({
          ...attemptEventFields(item, run, now),
          commandIndex: finished.index,
          commandType: finished.type,
          outcome,
          durationSeconds: msToSeconds(now - finished.startedAt),
        }),
      ),
    ],
    reply: { state: item.state },
  };
}
