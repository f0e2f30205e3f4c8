import { regionOfApiGatewayUrl } from '../sdk/sigv4-signer.js';
import { UsageError } from './exit-codes.js';

/**
 * Refuses an API Gateway URL written with http://. Calls to it are signed with the operator's AWS
 * credentials, and SigV4 does not sign the scheme: sent in the clear, a call could be read and
 * replayed over https. API Gateway answers https only, so nothing that works is refused.
 */
export function refuseApiGatewayOverHttp(url: URL, from: string, written: string): void {
  if (url.protocol !== 'http:' || regionOfApiGatewayUrl(url.href) === undefined) return;
  const https = `https://${url.host}${url.pathname === '/' ? '' : url.pathname}${url.search}`;
  throw new UsageError(`${from} '${written}' is an API Gateway URL over http: write ${https} (API Gateway answers https only, and a signed call must not cross the network readable).`);
}
