import { regionOfApiGatewayUrl, sigV4Signer, type SigV4Options } from '../sdk/sigv4-signer.js';
import type { RequestSigner } from '../sdk/request-signer.js';
import { CallNotSignedError } from './call-not-signed-error.js';
import { replyOf, type Forwarder } from './console-routes.js';

/**
 * Forwards each console call to a deployed Vigil, signed with SigV4 for API Gateway (`execute-api`)
 * with the user's own AWS credentials (the SDK's default chain), so nothing new is exposed on AWS.
 * The signing region is the API host's (`*.execute-api.<region>.amazonaws.com`), else `fallbackRegion`.
 */
export function signedForwarder(options: { fallbackRegion?: string; credentials?: SigV4Options['credentials'] } = {}): Forwarder {
  const signers = new Map<string, RequestSigner>();
  const signerFor = (region: string) => {
    let signer = signers.get(region);
    if (!signer) {
      signer = sigV4Signer({ region, ...(options.credentials ? { credentials: options.credentials } : {}) });
      signers.set(region, signer);
    }
    return signer;
  };
  return async ({ method, url, body, contentType, signal }) => {
    const region = regionOfApiGatewayUrl(url.href) ?? options.fallbackRegion ?? process.env['AWS_REGION'] ?? 'us-east-1';
    const hasBody = method !== 'GET' && method !== 'HEAD';
    const headers = await signerFor(region)({
      method,
      url,
      headers: contentType ? { 'content-type': contentType } : {},
      ...(hasBody ? { body } : {}),
    }).catch((error: unknown) => {
      throw new CallNotSignedError(error);
    });
    // Never followed: on another host fetch drops Authorization but not the session token.
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      ...(signal ? { signal } : {}),
      headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
      ...(hasBody ? { body } : {}),
    });
    return replyOf(response);
  };
}
