import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const isExecutableFile = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * Whether `command` names a program this machine can start: a path to an executable file, or a name
 * found on `PATH`. A command that cannot start would fail every item it is given, so the runner asks
 * before it claims anything.
 */
export function isRunnable(command: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (command.includes('/')) return isExecutableFile(command);
  return (env['PATH'] ?? '').split(delimiter).some((dir) => dir !== '' && isExecutableFile(join(dir, command)));
}
