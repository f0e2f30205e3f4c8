import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sigV4Signer } from '../../shared/sdk/sigv4-signer.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const region = 'eu-west-1';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
const encode = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * What API Gateway recomputes from the request it receives, written from AWS's Signature Version 4
 * description rather than taken from the SDK: every query pair, sorted by name and then by value.
 */
function expectedSignature(method: string, url: URL, headers: Record<string, string>, signedHeaders: string[], amzDate: string, body: string): string {
  const pairs = [...url.searchParams].map(([name, value]) => [encode(name), encode(value)] as const);
  pairs.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  const lowered = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]));
  const canonicalRequest = [
    method,
    url.pathname,
    pairs.map(([name, value]) => `${name}=${value}`).join('&'),
    signedHeaders.map((name) => `${name}:${lowered[name]}\n`).join(''),
    signedHeaders.join(';'),
    sha256(body),
  ].join('\n');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${region}/execute-api/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [region, 'execute-api', 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
}

describe('sigV4Signer signs what API Gateway will check', () => {
  const sign = sigV4Signer({ region, credentials });

  async function signatureCheck(target: string, body?: string) {
    const url = new URL(target);
    const headers = { 'content-type': 'application/json' };
    const added = await sign({ method: 'POST', url, headers, ...(body !== undefined ? { body } : {}) });
    const authorization = added['authorization'] ?? '';
    const signedHeaders = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
    const signature = /Signature=([0-9a-f]+)/.exec(authorization)?.[1];
    const sent = { ...headers, ...added, host: url.host };
    return { signature, expected: expectedSignature('POST', url, sent, signedHeaders, added['x-amz-date'] ?? '', body ?? '') };
  }

  it('a plain request: the signature matches one computed independently from the request', async () => {
    const { signature, expected } = await signatureCheck('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/jobs?limit=5', '{"jobId":"j-1"}');
    expect(signature).toBe(expected);
  });

  it('a query naming a key twice is signed with both values, as the URL sends them (not the last one only)', async () => {
    const { signature, expected } = await signatureCheck('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/jobs?status=b&limit=5&status=a');
    expect(signature).toBe(expected);
  });
});
