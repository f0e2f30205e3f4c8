import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CALL_TIMEOUT_HELP } from './call-timeout-flag.js';
import { ExitCode, UsageError } from './exit-codes.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every subcommand takes. */
export const commonOptions = {
  endpoint: { type: 'string' },
  gate: { type: 'boolean' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** Taken by every subcommand but the long-running ones (call-timeout-flag.ts). */
const callTimeoutOption = { 'call-timeout': { type: 'string' } } as const satisfies Options;

export interface CommandSpec<O extends Options> {
  usage: string;
  summary: string;
  /** One line per option, for --help. */
  optionHelp?: readonly string[];
  options: O;
  positionals: readonly string[];
  /** Arguments after `--` (a command to run) are allowed. */
  restArguments?: boolean;
  /** Runs until told to stop (the runner, the console): its calls keep limits of their own, and it takes no `--call-timeout`. */
  longRunning?: boolean;
}

const commonHelp = [
  '--endpoint URL   Vigil to talk to (default $VIGIL_ENDPOINT, else the first region of .vigil/endpoints.json)',
  '--gate           the gate of .vigil/endpoints.json',
  '--json           machine-readable output',
  '-h, --help       this help',
];

export function helpText(spec: CommandSpec<Options>): string {
  const options = [...(spec.optionHelp ?? []), ...(spec.longRunning ? [] : [CALL_TIMEOUT_HELP]), ...commonHelp];
  return [`Usage: ${spec.usage}`, '', spec.summary, '', 'Options:', ...options.map((line) => `  ${line}`)].join('\n');
}

type Config<O extends Options> = { args: string[]; options: typeof commonOptions & typeof callTimeoutOption & O; allowPositionals: true; strict: true };
export type Parsed<O extends Options> = ReturnType<typeof parseArgs<Config<O>>>;
export type Command = (argv: string[]) => Promise<ExitCode>;

/**
 * A subcommand: argv parsed by node:util's parseArgs (an unknown flag or a missing argument is a
 * UsageError), `--help` answered from its spec, else `run`.
 */
export function command<const O extends Options>(spec: CommandSpec<O>, run: (parsed: Parsed<O>) => Promise<ExitCode>): Command {
  const help = () => helpText(spec as CommandSpec<Options>);
  return async (argv) => {
    let parsed: Parsed<O>;
    try {
      const options = { ...commonOptions, ...(spec.longRunning ? {} : callTimeoutOption), ...spec.options };
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true }) as Parsed<O>;
    } catch (error) {
      throw new UsageError(`${(error as Error).message}\n\n${help()}`);
    }
    if ((parsed.values as { help?: boolean }).help) {
      console.log(help());
      return ExitCode.ok;
    }
    const missing = spec.positionals.slice(parsed.positionals.length);
    if (missing.length > 0) throw new UsageError(`Missing ${missing.join(' ')}.\n\n${help()}`);
    if (parsed.positionals.length > spec.positionals.length && !spec.restArguments) {
      throw new UsageError(`Unexpected argument '${parsed.positionals[spec.positionals.length]}'.\n\n${help()}`);
    }
    return run(parsed);
  };
}
