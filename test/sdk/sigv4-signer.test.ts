import { createHash, createHmac } from 'node:crypto';
import { getCanonicalQuery } from '@smithy/signature-v4';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sigV4Signer } from '../../shared/sdk/sigv4-signer.js';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const region = 'eu-west-1';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text, 'utf8').digest();
/** A query component as sent, its `%XY` escapes decoded to bytes; anything else (a `+` too: a URL's query is not a form) is itself. */
function percentDecoded(sent: string): Buffer {
  const bytes: number[] = [];
  for (let at = 0; at < sent.length; at++) {
    const escaped = /^%[0-9A-Fa-f]{2}/.exec(sent.slice(at))?.[0];
    if (escaped) {
      bytes.push(parseInt(escaped.slice(1), 16));
      at += 2;
    } else {
      const codePoint = String.fromCodePoint(sent.codePointAt(at) ?? 0);
      bytes.push(...Buffer.from(codePoint, 'utf8'));
      at += codePoint.length - 1;
    }
  }
  return Buffer.from(bytes);
}

/** SigV4's URI encoding: RFC 3986's unreserved characters as they are, every other byte as `%XY` in upper case. */
const sigV4Encoded = (bytes: Buffer): string =>
  [...bytes].map((byte) => (/[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte)) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** The canonical query string of the query as sent (`url.search`): every pair decoded and encoded again, sorted by name, then by value. */
function canonicalQuery(search: string): string {
  const pairs = search
    .replace(/^\?/, '')
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const at = pair.includes('=') ? pair.indexOf('=') : pair.length;
      return [sigV4Encoded(percentDecoded(pair.slice(0, at))), sigV4Encoded(percentDecoded(pair.slice(at + 1)))] as const;
    });
  pairs.sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : x > y ? 1 : 0) : a < b ? -1 : 1));
  return pairs.map(([name, value]) => `${name}=${value}`).join('&');
}

/** @smithy/signature-v4's canonical query of the pairs as sent, each decoded by decodeURIComponent (which keeps a `+`). */
function smithyCanonicalQuery(search: string): string {
  const query: Record<string, string[]> = {};
  for (const pair of search.replace(/^\?/, '').split('&').filter((pair) => pair !== '')) {
    const at = pair.includes('=') ? pair.indexOf('=') : pair.length;
    const name = decodeURIComponent(pair.slice(0, at));
    query[name] = [...(query[name] ?? []), decodeURIComponent(pair.slice(at + 1))];
  }
  return getCanonicalQuery({ method: 'GET', protocol: 'https:', hostname: 'h', path: '/', headers: {}, query });
}

/**
 * What API Gateway recomputes from the request it receives, written from AWS's Signature Version 4
 * description rather than taken from the SDK: every query pair as sent, sorted by name and then by value.
 */
function expectedSignature(method: string, url: URL, headers: Record<string, string>, signedHeaders: string[], amzDate: string, body: string): string {
  const lowered = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value.trim()]));
  const canonicalRequest = [
    method,
    url.pathname,
    canonicalQuery(url.search),
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

  it('a raw + in the query is signed as the + it is (%2B), not as a space (%20): AWS reads a URL, not a form', async () => {
    const { signature, expected } = await signatureCheck('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/jobs?cursor=ab+c/d==&q=x%20y');
    expect(signature).toBe(expected);
  });

  /** Pieces of a query as a caller may write it: raw or escaped, reserved or not, ASCII or not. */
  const piece = fc.constantFrom('a', 'Z', '0', '-', '_', '.', '~', '*', '!', "'", '(', ')', '+', ' ', '%20', '%2B', '%2b', '%7E', '%2A', '/', ':', '@', '?', ',', ';', '$', 'é', '%C3%A9', '日', '😀', '%F0%9F%98%80', '"', '<');
  const text = (minLength: number) => fc.array(piece, { minLength, maxLength: 6 }).map((pieces) => pieces.join(''));
  const pair = fc.tuple(fc.oneof(fc.constantFrom('status', 'limit', 'a+b', 'a b'), text(1)), text(0));

  it('any query, with + and %20, ~ and *, unicode and keys given twice, is signed as AWS recomputes it from what is sent', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 5 }), fc.boolean(), async (pairs, bareLast) => {
        const query = pairs.map(([name, value], n) => (bareLast && n === pairs.length - 1 && value === '' ? name : `${name}=${value}`)).join('&');
        const url = `https://abc123.execute-api.eu-west-1.amazonaws.com/prod/jobs?${query}`;
        const { signature, expected } = await signatureCheck(url);
        expect(signature).toBe(expected);
        // The spec's encoding above is @smithy/signature-v4's too, given the pairs as AWS reads them.
        expect(canonicalQuery(new URL(url).search)).toBe(smithyCanonicalQuery(new URL(url).search));
      }),
      { numRuns: 300 },
    );
  });
});
