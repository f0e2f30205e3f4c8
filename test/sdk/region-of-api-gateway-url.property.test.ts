import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointOptions } from '../../shared/cli/endpoint.js';
import { consoleTargets } from '../../shared/cli/commands/console.js';
import { regionOfApiGatewayUrl } from '../../shared/sdk/sigv4-signer.js';

/**
 * A URL whose host only contained `.execute-api.<region>.amazonaws.com` somewhere
 * (`https://abc.execute-api.us-east-1.amazonaws.com.evil.example`) was read as a deployed API: the
 * CLI signed its calls with the operator's AWS credentials and sent them to that host, and
 * `vigil console` switched to its signing forwarder. Only a host that is an API Gateway host names a
 * region; any other host is not AWS's, and calls to it are sent unsigned.
 */
const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,14}[a-z0-9])?$/);
const apiId = fc.stringMatching(/^[a-z0-9]{10}$/);
const region = fc.constantFrom('us-east-1', 'eu-west-1', 'ap-southeast-2', 'us-gov-west-1', 'cn-north-1');
const path = fc.constantFrom('', '/', '/prod', '/jobs/j-1?x=1');
const apiHost = fc.tuple(apiId, region).map(([id, name]) => ({ host: `${id}.execute-api.${name}.amazonaws.com`, region: name }));
const otherDomain = fc.array(label, { minLength: 1, maxLength: 3 }).map((labels) => `${labels.join('.')}.example`);

describe('regionOfApiGatewayUrl reads a region from an API Gateway host only', () => {
  it('an API Gateway URL names its region', () => {
    fc.assert(
      fc.property(apiHost, path, ({ host, region: name }, rest) => {
        expect(regionOfApiGatewayUrl(`https://${host}${rest}`)).toBe(name);
      }),
    );
  });

  it('an API Gateway host in China (amazonaws.com.cn) names its region', () => {
    expect(regionOfApiGatewayUrl('https://a1b2c3d4e5.execute-api.cn-north-1.amazonaws.com.cn/jobs')).toBe('cn-north-1');
  });

  it('another domain ending with an API Gateway host as its prefix is not AWS', () => {
    fc.assert(
      fc.property(apiHost, otherDomain, path, ({ host }, domain, rest) => {
        expect(regionOfApiGatewayUrl(`https://${host}.${domain}${rest}`)).toBeUndefined();
      }),
    );
  });

  it('an API Gateway host in the path, the query or the user name of another host is not AWS', () => {
    fc.assert(
      fc.property(apiHost, otherDomain, ({ host }, domain) => {
        for (const url of [`https://${domain}/${host}`, `https://${domain}/x?h=.${host}`, `https://${host}@${domain}/`, `https://${domain}/#.${host}`]) {
          expect(regionOfApiGatewayUrl(url), url).toBeUndefined();
        }
      }),
    );
  });

  it('a host with an API Gateway name as a label inside it is not AWS', () => {
    fc.assert(
      fc.property(apiHost, label, ({ host }, prefix) => {
        expect(regionOfApiGatewayUrl(`https://${prefix}-${host.replace('.amazonaws.com', '.amazonaws.com-evil.example')}`)).toBeUndefined();
      }),
    );
  });
});

describe('a look-alike host is called unsigned', () => {
  const lookAlike = 'https://abc1234567.execute-api.us-east-1.amazonaws.com.evil.example';

  it('the CLI gives no signer for it', () => {
    expect(endpointOptions({ endpoint: lookAlike }).signer).toBeUndefined();
    expect(endpointOptions({ endpoint: 'https://abc1234567.execute-api.us-east-1.amazonaws.com' }).signer).toBeDefined();
  });

  it('vigil console does not show it under an AWS region', () => {
    expect(consoleTargets({ endpoint: lookAlike }, '/nonexistent', {}).regions).toEqual({ region: lookAlike });
  });
});
