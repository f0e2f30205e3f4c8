import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { Forwarder } from './console-routes.js';

/** SHA-256 (and HMAC-SHA-256 with a secret) on node:crypto, in the shape the SigV4 signer asks for. */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string' ? data : data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);

export class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    return this.secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(this.secret));
  }
  update(data: SourceData): void {
    this.hash.update(bytes(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}

/** `https://abc.execute-api.eu-west-1.amazonaws.com` → `eu-west-1`. */
export const regionOfApiUrl = (url: URL): string | undefined => /\.execute-api\.([a-z0-9-]+)\.amazonaws\.com$/.exec(url.hostname)?.[1];

/**
 * Forwards each console call to a deployed Vigil, signed with SigV4 for API Gateway (`execute-api`)
 * with the user's own AWS credentials (the SDK's default chain), so nothing new is exposed on AWS.
 */
export function signedForwarder(options: { fallbackRegion?: string; credentials?: ConstructorParameters<typeof SignatureV4>[0]['credentials'] } = {}): Forwarder {
  const credentials = options.credentials ?? defaultProvider();
  const signers = new Map<string, SignatureV4>();
  const signerFor = (region: string) => {
    let signer = signers.get(region);
    if (!signer) {
      signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: NodeSha256 });
      signers.set(region, signer);
    }
    return signer;
  };
  return async ({ method, url, body, contentType }) => {
    const region = regionOfApiUrl(url) ?? options.fallbackRegion ?? process.env['AWS_REGION'] ?? 'us-east-1';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const signed = await signerFor(region).sign({
      method,
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { host: url.host, ...(contentType ? { 'content-type': contentType } : {}) },
      ...(hasBody ? { body } : {}),
    });
    const response = await fetch(url, { method, headers: signed.headers, ...(hasBody ? { body } : {}) });
    return { statusCode: response.status, contentType: response.headers.get('content-type') ?? 'application/json', body: await response.text() };
  };
}
