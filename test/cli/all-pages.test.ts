import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages } from '../../shared/cli/all-pages.js';
import { VigilHttp } from '../../shared/sdk/vigil-http.js';

/** Serves `/escalations?poolId=p` in pages of two, each naming the next cursor, as the region manager does. */
const entries = ['p~a~3', 'p~b~3', 'p~c~3', 'p~d~3', 'p~e~3'];
const requested: string[] = [];
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    requested.push(url.search);
    const cursor = url.searchParams.get('cursor');
    if (url.pathname === '/stuck') {
      // A server that answers every page with the same cursor.
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ items: [{ cursor }], nextCursor: 'same' }));
      return;
    }
    const start = cursor === null ? 0 : entries.indexOf(cursor) + 1;
    const page = entries.slice(start, start + 2);
    const last = page.at(-1);
    const more = start + 2 < entries.length;
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ escalations: page.map((escalationId) => ({ escalationId })), ...(more && last ? { nextCursor: last } : {}) }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the vigil command follows a listing’s cursor', () => {
  it('joins every page into one list, keeping the query it was given', async () => {
    // Act
    const all = await allPages(new VigilHttp({ endpoint, retry: { retries: 0 } }), '/escalations?poolId=p', 'escalations');
    // Assess
    expect(all).toEqual({ escalations: entries.map((escalationId) => ({ escalationId })) });
    expect(requested).toEqual(['?poolId=p', '?poolId=p&cursor=p~b~3', '?poolId=p&cursor=p~d~3']);
  });

  it('stops when a page names the cursor it was asked with, instead of asking for it again without end', async () => {
    // Act
    requested.length = 0;
    const all = await allPages(new VigilHttp({ endpoint, retry: { retries: 0 } }), '/stuck', 'items');
    // Assess
    expect(requested).toEqual(['', '?cursor=same']);
    expect(all).toEqual({ items: [{ cursor: null }, { cursor: 'same' }] });
  });
});
