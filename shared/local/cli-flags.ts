import { parseArgs } from 'node:util';
import { GATE } from '../adapters/local/event-routes.js';
import { MAX_DURATION_SECONDS } from '../domain/time.js';
import * as z from '../validation/zod.js';

/** `npm start` flags (README "Configuration"). */
export interface LocalCloudFlags {
  port: number;
  regions: string[];
  dataDir: string;
  gateFallbackSeconds: number;
  stuckThresholdSeconds: number;
  gateStuckThresholdSeconds: number;
  /** Time moves only through `POST /_local/clock/advance` (tests and demos; never deployed). */
  virtualClock?: boolean;
}

// A region named as the gate would share its stores and events: the local cloud would die on a bare ECONNREFUSED.
const region = z.string().check(
  z.refine((name) => /^[a-z0-9-]{1,32}$/.test(name), {
    error: (issue) => `--regions names '${String(issue.input)}', which is not a region name: use 1–32 lower-case letters, digits and dashes, like us-east-1`,
  }),
  z.refine((name) => name !== GATE, `--regions may not name a region '${GATE}': it is the gate's own name; name the region otherwise`),
);
// Decimal text only: Number() would also take '0x10' (16), '1e3' or '' (0) for seconds no one wrote.
const positiveSeconds = (flag: string) =>
  z.pipe(
    z.string().check(z.regex(/^\s*\d+(\.\d+)?\s*$/, { error: (issue) => `--${flag} needs a number of seconds written in digits, like 120, not '${String(issue.input)}'` })),
    z.pipe(z.transform(Number), z.number().check(z.positive(`--${flag} must be greater than 0`))),
  );
/**
 * A default a job gets, or a wait its deadline gets, is held to what a job may name itself (one year):
 * beyond, its deadline leaves the Date range and every answer that shows it fails.
 */
const boundedSeconds = (flag: string, what: string) =>
  positiveSeconds(flag).check(
    z.lte(MAX_DURATION_SECONDS, `--${flag} must be at most ${MAX_DURATION_SECONDS} (one year, the longest ${what}); pass a smaller number of seconds`),
  );

const flagsSchema = z.object({
  port: z.pipe(
    z.string().check(z.regex(/^\d{1,5}$/, '--port needs a whole number of 0–65535')),
    z.pipe(z.transform(Number), z.number().check(z.lte(65_535, '--port must be 0–65535'))),
  ),
  regions: z.pipe(
    z.pipe(
      z.string(),
      z.transform((list: string) => list.split(',').map((name) => name.trim()).filter(Boolean)),
    ),
    z.array(region).check(
      z.minLength(1, '--regions needs at least one region'),
      z.refine((names) => new Set(names).size === names.length, 'each region may appear only once'),
    ),
  ),
  dataDir: z.string().check(z.minLength(1, '--data-dir needs a directory path, like --data-dir .vigil')),
  gateFallbackSeconds: boundedSeconds('gate-fallback-seconds', 'timeout a job may name'),
  stuckThresholdSeconds: boundedSeconds('stuck-threshold-seconds', 'stuck threshold a job may name'),
  gateStuckThresholdSeconds: boundedSeconds('gate-stuck-threshold-seconds', 'stuck threshold a job may name'),
}).check(
  // The gate listens on --port and region i on --port + 1 + i. Only a port that is a number is weighed:
  // `--port abc` is refused for what it is, not also told to be lower.
  z.refine((flags) => flags.port === 0 || flags.port + flags.regions.length <= 65_535, {
    message: '--port leaves no room for the regions: they listen on --port + 1, + 2, …, up to 65535; pass a lower --port',
    when: ({ value }) => typeof (value as { port?: unknown }).port === 'number' && Array.isArray((value as { regions?: unknown }).regions),
  }),
);

export const usage = `Usage: npm start -- [--port 4700] [--regions us-east-1,eu-west-1,ap-southeast-2] [--data-dir .vigil]
                    [--gate-fallback-seconds 300] [--stuck-threshold-seconds 120] [--gate-stuck-threshold-seconds 180]
                    [--virtual-clock] [--help]`;

/** `npm start -- --help` (or `-h`): the usage is the answer, not a refusal of an unknown flag. */
export const asksForHelp = (argv: readonly string[]): boolean => argv.some((arg) => arg === '--help' || arg === '-h');

/** Parses the flags; throws an Error whose message says what is wrong and shows the usage. */
export function parseFlags(argv: readonly string[]): LocalCloudFlags {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: 'string', default: '4700' },
        regions: { type: 'string', default: 'us-east-1,eu-west-1,ap-southeast-2' },
        'data-dir': { type: 'string', default: '.vigil' },
        'gate-fallback-seconds': { type: 'string', default: '300' },
        'stuck-threshold-seconds': { type: 'string', default: '120' },
        'gate-stuck-threshold-seconds': { type: 'string', default: '180' },
        'virtual-clock': { type: 'boolean', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
  const parsed = flagsSchema.safeParse({
    port: values.port,
    regions: values.regions,
    dataDir: values['data-dir'],
    gateFallbackSeconds: values['gate-fallback-seconds'],
    stuckThresholdSeconds: values['stuck-threshold-seconds'],
    gateStuckThresholdSeconds: values['gate-stuck-threshold-seconds'],
  });
  if (!parsed.success) throw new Error(`${parsed.error.issues.map((issue) => issue.message).join('; ')}\n${usage}`);
  return { ...parsed.data, virtualClock: values['virtual-clock'] === true };
}
