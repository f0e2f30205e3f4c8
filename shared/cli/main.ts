import { CallBudgetSpentError, RequestNotSignedError, VigilApiError, VigilUnreachableError } from '../sdk/errors.js';
import type { Command } from './command-line.js';
import { consoleCommand } from './commands/console.js';
import { cancel, status, submit, watch } from './commands/jobs.js';
import { dlqList, dlqRetry, escalationsAnswer, escalationsList, poolsCreate, poolsStatus } from './commands/pools.js';
import { run } from './commands/run.js';
import { ExitCode, UsageError } from './exit-codes.js';
import { exitOnUnexpectedErrors, reportUnexpected } from './unexpected-error.js';
import { dropOutputOnceReadersGo } from './closed-output.js';
import { AWS_CREDENTIALS_HELP } from './aws-credentials-help.js';
import { $ZodError } from 'zod/v4/core';

const commands: Record<string, Command | Record<string, Command>> = {
  submit,
  status,
  watch,
  cancel,
  pools: { create: poolsCreate, status: poolsStatus },
  dlq: { list: dlqList, retry: dlqRetry },
  escalations: { list: escalationsList, answer: escalationsAnswer },
  run,
  console: consoleCommand,
};

const usage = `Usage: vigil <command> [options]   (vigil <command> --help for its options)

  submit FILE                  submit a job (JSON or YAML; one with datacenters goes to the gate)
  status JOB                   show a job
  watch JOB                    follow a job live until it ends
  cancel JOB                   cancel a job
  pools create FILE            create a pool (JSON, or spec 113 YAML)
  pools status POOL            show a pool
  dlq list POOL                list dead-lettered items
  dlq retry POOL ITEM          make a dead-lettered item available again
  escalations list             list escalations
  escalations answer ID OPTION answer one
  run --pool POOL --agent ID [-- CMD …]                     run a pool's items as child processes
  run --job JOB --workflow WF --worker ID --token T -- CMD   run a job's workflow as a child process (or the token in $VIGIL_TOKEN)
  console [--endpoint URL] [--port N]                       serve the operator console locally

Exit codes: 0 success, 1 the job/item failed, 2 bad usage or input (or an unexpected error: the message says which),
3 timed out or cancelled, 4 Vigil unreachable.`;

function find(argv: string[]): { command: Command; rest: string[] } | undefined {
  const entry = commands[argv[0] ?? ''];
  if (typeof entry === 'function') return { command: entry, rest: argv.slice(1) };
  const sub = entry?.[argv[1] ?? ''];
  return sub ? { command: sub, rest: argv.slice(2) } : undefined;
}

async function main(argv: string[]): Promise<ExitCode> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    console.log(usage);
    return argv.length === 0 ? ExitCode.usage : ExitCode.ok;
  }
  const found = find(argv);
  if (!found) {
    console.error(`Unknown command '${argv.slice(0, 2).join(' ')}'.\n\n${usage}`);
    return ExitCode.usage;
  }
  try {
    return await found.command(found.rest);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(error.message);
      return ExitCode.usage;
    }
    if (error instanceof RequestNotSignedError) {
      console.error(`${error.message} ${AWS_CREDENTIALS_HELP}`);
      return ExitCode.usage;
    }
    if (error instanceof VigilUnreachableError) {
      const slowOnly = error instanceof CallBudgetSpentError ? ' If it is only slow, pass --call-timeout S to wait longer.' : '';
      console.error(`${error.message}${slowOnly}`);
      return ExitCode.unreachable;
    }
    if (error instanceof VigilApiError) {
      console.error(`${error.code}: ${error.message}`);
      if (error.details !== undefined) console.error(JSON.stringify(error.details, null, 2));
      return ExitCode.usage;
    }
    if (error instanceof $ZodError) {
      const where = error.issues[0]?.path.join('.') || '(the answer)';
      console.error(
        `The answer is not what this command expects (${where}: ${error.issues[0]?.message ?? 'unexpected'}). ` +
          'Point --endpoint at a region manager, or at the gate and pass --gate.',
      );
      return ExitCode.usage;
    }
    // What failed unexpectedly may have left timers running (an attempt's heartbeats): they would hold the process.
    process.exit(reportUnexpected(error));
  }
}

exitOnUnexpectedErrors();
dropOutputOnceReadersGo();
process.exitCode = await main(process.argv.slice(2));
