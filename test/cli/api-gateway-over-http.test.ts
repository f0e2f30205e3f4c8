import { describe, expect, it } from 'vitest';
import { consoleTargets } from '../../shared/cli/commands/console.js';
import { endpointOptions } from '../../shared/cli/endpoint.js';
import { UsageError } from '../../shared/cli/exit-codes.js';

/*
 * `--endpoint http://abc.execute-api.us-east-1.amazonaws.com` (https mistyped) was signed with the
 * operator's AWS credentials and sent over plain http: the signature and session token crossed the
 * network readable, and SigV4 does not sign the scheme, so anyone on the path could replay the call
 * over https for minutes. API Gateway answers https only: the command refuses it, exit 2, before any call.
 */
describe('an API Gateway endpoint written with http://', () => {
  const cleartext = 'http://abc1234567.execute-api.us-east-1.amazonaws.com';

  it('the CLI refuses it, naming the https:// form', () => {
    expect(() => endpointOptions({ endpoint: cleartext })).toThrow(UsageError);
    expect(() => endpointOptions({ endpoint: cleartext })).toThrow("--endpoint 'http://abc1234567.execute-api.us-east-1.amazonaws.com' is an API Gateway URL over http: write https://abc1234567.execute-api.us-east-1.amazonaws.com");
  });

  it('vigil console refuses it, for --endpoint and --gate-endpoint', () => {
    expect(() => consoleTargets({ endpoint: cleartext }, '/nonexistent', {})).toThrow(/--endpoint .* over http: write https:/);
    expect(() => consoleTargets({ 'gate-endpoint': `${cleartext}/prod` }, '/nonexistent', {})).toThrow(/--gate-endpoint .* over http: write https:\/\/abc1234567\.execute-api\.us-east-1\.amazonaws\.com\/prod/);
  });

  it('an http:// endpoint that is not API Gateway (the local cloud) is still called as written', () => {
    expect(endpointOptions({ endpoint: 'http://127.0.0.1:4701' })).toEqual({ endpoint: 'http://127.0.0.1:4701' });
    expect(consoleTargets({ endpoint: 'http://127.0.0.1:4701' }, '/nonexistent', {}).regions).toEqual({ region: 'http://127.0.0.1:4701' });
  });
});
