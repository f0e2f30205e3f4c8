import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from '../validation/zod.js';
import { regionOfApiGatewayUrl, sigV4Signer } from '../sdk/sigv4-signer.js';
import { VigilHttp, type VigilHttpOptions } from '../sdk/vigil-http.js';
import { refuseApiGatewayOverHttp } from './api-gateway-over-https.js';
import { callBudgetMs } from './call-timeout-flag.js';
import { UsageError } from './exit-codes.js';
import { httpUrl } from './http-url.js';

const endpointsFile = z.object({ gate: z.string(), regions: z.record(z.string(), z.string()) });

export interface EndpointFlags {
  endpoint?: string | undefined;
  gate?: boolean | undefined;
  'call-timeout'?: string | undefined;
}

/**
 * `--endpoint`, else `$VIGIL_ENDPOINT`, else `.vigil/endpoints.json` (its first region, or its gate
 * with `--gate`); `from` names which, for a message about it.
 */
export function resolveEndpoint(flags: EndpointFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): { endpoint: string; from: string } {
  if (flags.endpoint) return { endpoint: flags.endpoint, from: '--endpoint' };
  if (!flags.gate && env['VIGIL_ENDPOINT']) return { endpoint: env['VIGIL_ENDPOINT'], from: 'VIGIL_ENDPOINT' };
  const file = join(cwd, '.vigil', 'endpoints.json');
  let endpoints;
  try {
    endpoints = endpointsFile.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    throw new UsageError(
      flags.gate
        ? `No gate endpoint: pass --endpoint URL (the gate's), or run 'npm start' here (it writes ${file}). ($VIGIL_ENDPOINT is not used for the gate.)`
        : `No Vigil endpoint: pass --endpoint URL, set VIGIL_ENDPOINT, or run 'npm start' here (it writes ${file}).`,
    );
  }
  if (flags.gate) return { endpoint: endpoints.gate, from: file };
  const first = Object.values(endpoints.regions)[0];
  if (!first) throw new UsageError(`${file} names no region. Pass --endpoint URL.`);
  return { endpoint: first, from: file };
}

/**
 * A client for the resolved endpoint, for a command that answers at once: each call gives up after
 * `--call-timeout` (retries included); calls to a deployed API Gateway are SigV4-signed.
 */
export const vigilHttp = (flags: EndpointFlags): VigilHttp => new VigilHttp({ ...endpointOptions(flags), callBudgetMs: callBudgetMs(flags['call-timeout']) });

export function endpointOptions(flags: EndpointFlags): VigilHttpOptions {
  const { endpoint, from } = resolveEndpoint(flags);
  const url = httpUrl(endpoint);
  if (!url) throw new UsageError(`${from} '${endpoint}' is not an http(s) URL. Write it whole, e.g. --endpoint http://127.0.0.1:4701.`);
  refuseApiGatewayOverHttp(url, from, endpoint);
  const region = regionOfApiGatewayUrl(url.href);
  return { endpoint, ...(region ? { signer: sigV4Signer({ region }) } : {}) };
}
