import { secondsToMs, type EpochMs } from '../time.js';
import { enforcesCommandDeadlines, type PoolConfig } from './pool-config.js';
import type { AttemptRun, RunningCommand } from './pool-item.js';

/**
 * The attempt's commands started and not yet finished, in start order. Seed 003 schedules each
 * command's timeout on its own and cancels none when the next one starts, so a command the agent
 * never finished keeps its deadline however many start after it. Items written before several could
 * run kept the one running command as `command`.
 */
export const runningCommands = (run: Pick<AttemptRun, 'commands' | 'command'>): RunningCommand[] => run.commands ?? (run.command ? [run.command] : []);

export const commandDeadlineOf = (command: RunningCommand): EpochMs => command.startedAt + secondsToMs(command.limitSeconds);

/** The running command whose deadline comes first (the earliest started of a tie), when the policy enforces command limits. */
export function firstCommandDue(run: AttemptRun, config: PoolConfig): { command: RunningCommand; at: EpochMs } | undefined {
  if (!enforcesCommandDeadlines(config)) return undefined;
  let first: { command: RunningCommand; at: EpochMs } | undefined;
  for (const command of runningCommands(run)) {
    const at = commandDeadlineOf(command);
    if (!first || at < first.at) first = { command, at };
  }
  return first;
}

/** The run with these commands running, written in the current shape (`commands`, never the old `command`). */
export function withRunningCommands(run: AttemptRun, commands: RunningCommand[]): AttemptRun {
  const { command: _old, commands: _before, ...rest } = run;
  return commands.length > 0 ? { ...rest, commands } : rest;
}
