import { Sha256 } from '@aws-crypto/sha256-js';
import { fromNodeProviderChain } from '@aws-sdk/credential-providers';
import { SignatureV4 } from '@smithy/signature-v4';
import type { RequestSigner } from './request-signer.js';

export interface SigV4Options {
  /** The region of the API Gateway endpoint. */
  region: string;
  /** The default chain (environment, profile, SSO, instance role) when absent. */
  credentials?: ConstructorParameters<typeof SignatureV4>[0]['credentials'];
}

/**
 * The query's pairs as AWS reads them to check a signature: percent-decoded, a `+` kept a `+` (a URL's
 * query is not a form; URLSearchParams would read it as a space and sign `%20` where AWS signs `%2B`).
 */
function sentQueryPairs(url: URL): URLSearchParams {
  return new URLSearchParams(url.search.replaceAll('+', '%2B'));
}

/** Signs client-route calls for a deployed API (IAM auth on API Gateway, service `execute-api`). */
export function sigV4Signer(options: SigV4Options): RequestSigner {
  const signer = new SignatureV4({
    service: 'execute-api',
    region: options.region,
    credentials: options.credentials ?? fromNodeProviderChain(),
    sha256: Sha256,
  });
  return async (request) => {
    // A name given twice is signed with every value it is sent with, as API Gateway checks it.
    const query: Record<string, string | string[]> = {};
    for (const [name, value] of sentQueryPairs(request.url)) {
      const earlier = query[name];
      query[name] = earlier === undefined ? value : [earlier, value].flat();
    }
    const signed = await signer.sign({
      method: request.method,
      protocol: request.url.protocol,
      hostname: request.url.hostname,
      ...(request.url.port ? { port: Number(request.url.port) } : {}),
      path: request.url.pathname,
      query,
      headers: { ...request.headers, host: request.url.host },
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    return signed.headers;
  };
}

/** The whole host of an API Gateway endpoint, China's `amazonaws.com.cn` included. */
const API_GATEWAY_HOST = /^[a-z0-9-]+\.execute-api\.([a-z0-9-]+)\.amazonaws\.com(?:\.cn)?$/;

/**
 * The region in an API Gateway URL (`https://id.execute-api.<region>.amazonaws.com`), if it is one.
 * The whole host must match: a caller signs with the operator's credentials whatever host this names
 * a region for, so `….amazonaws.com.evil.example` is no API Gateway's.
 */
export function regionOfApiGatewayUrl(url: string): string | undefined {
  return API_GATEWAY_HOST.exec(new URL(url).hostname)?.[1];
}
