import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConsoleTargets } from '../../console/console-routes.js';
import { startConsoleServer } from '../../console/console-server.js';
import { regionOfApiGatewayUrl } from '../../sdk/sigv4-signer.js';
import * as z from '../../validation/zod.js';
import { refuseApiGatewayOverHttp } from '../api-gateway-over-https.js';
import { command } from '../command-line.js';
import { ExitCode, UsageError } from '../exit-codes.js';
import { httpUrl } from '../http-url.js';

const endpointsFile = z.object({ gate: z.string(), regions: z.record(z.string(), z.string()) });

function url(text: string, flag: string): string {
  const parsed = httpUrl(text);
  if (!parsed) throw new UsageError(`${flag} '${text}' is not a URL. Pass an http(s) one, e.g. https://abc.execute-api.eu-west-1.amazonaws.com.`);
  refuseApiGatewayOverHttp(parsed, flag, text);
  return parsed.href.replace(/\/$/, '');
}

/**
 * Which listeners the console shows: with `--endpoint` (a region manager; default `$VIGIL_ENDPOINT`,
 * as for every command) and `--gate-endpoint`, those; without, every listener of
 * `.vigil/endpoints.json` (a local `npm start`).
 */
export function consoleTargets(
  values: { endpoint?: string | undefined; 'gate-endpoint'?: string | undefined },
  cwd = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): ConsoleTargets {
  const [endpoint, flag] = values.endpoint ? [values.endpoint, '--endpoint'] : [env['VIGIL_ENDPOINT'], 'VIGIL_ENDPOINT'];
  if (endpoint || values['gate-endpoint']) {
    const regions: Record<string, string> = {};
    if (endpoint) {
      const region = url(endpoint, flag);
      regions[regionOfApiGatewayUrl(region) ?? 'region'] = region;
    }
    return { ...(values['gate-endpoint'] ? { gate: url(values['gate-endpoint'], '--gate-endpoint') } : {}), regions };
  }
  const file = join(cwd, '.vigil', 'endpoints.json');
  try {
    return endpointsFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    throw new UsageError(`No Vigil to show: pass --endpoint URL (and --gate-endpoint URL), set VIGIL_ENDPOINT, or run 'npm start' here (it writes ${file}).`);
  }
}

export const consoleCommand = command(
  {
    usage: 'vigil console [--endpoint URL] [--gate-endpoint URL] [--port N]',
    summary:
      'Serve the operator console on 127.0.0.1 and forward its API calls to that Vigil; calls to a deployed API are signed with your AWS credentials. Runs until Ctrl-C.',
    optionHelp: ['--gate-endpoint URL  the gate as well (multi-region jobs)', '--port N             local port (default 4800; 0 picks a free one)'],
    options: { 'gate-endpoint': { type: 'string' }, port: { type: 'string' } },
    positionals: [],
    longRunning: true,
  },
  async ({ values }) => {
    // Digits only: Number() reads '' as 0 (a random port) and 0x50 as 80.
    const port = values.port === undefined ? 4800 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
    if (!(port >= 0 && port <= 65_535)) throw new UsageError(`--port must be a whole number 0–65535, not '${values.port}'.`);
    const targets = consoleTargets(values);
    const deployed = [targets.gate, ...Object.values(targets.regions)].some((target) => target && regionOfApiGatewayUrl(target));
    const server = await startConsoleServer({ targets, port, sign: deployed }).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`Port ${port} is in use (another vigil console?). Stop it, or pass another --port (0 picks a free one).`);
      throw error;
    });
    console.log(`console ${server.pageUrl}`);
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
    await server.close();
    return ExitCode.ok;
  },
);
