import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHttpListener } from '../../../shared/local/http-listener.js';
import type { Route } from '../../../shared/local/http-routes.js';
import { rawRequest } from '../../support/raw-request.js';

/**
 * An HTTP API (payload 2.0) hands a Lambda the body as text only for `text/*`, `application/json`,
 * `application/xml` and `application/javascript`; any other type, or none, arrives base64-encoded
 * with `isBase64Encoded: true` (curl's `-d`, which sends `application/x-www-form-urlencoded`, and
 * YAML pools included). `npm start` must hand its handlers the same event, so the decoding every
 * deployed call of those kinds goes through runs locally too.
 */
describe('local HTTP listener: bodies as API Gateway hands them to the handler', () => {
  let url = '';
  let server: Server | undefined;
  const events: APIGatewayProxyEventV2[] = [];
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/jobs',
      doc: { summary: 'Submit', auth: 'public', answers: { 200: { description: 'Seen' } } },
      handler: async () => async (event) => {
        events.push(event);
        return { statusCode: 200, body: '{}' };
      },
    },
  ];
  const body = '{"jobId":"é-1","timeoutSeconds":30}';
  const post = (headers: Record<string, string>) =>
    rawRequest(`${url}/jobs`, { method: 'POST', headers: { host: new URL(url).host, ...headers }, body });

  beforeAll(async () => ({ url, server } = await startHttpListener({ name: 'eu-west-1', port: 0, routes })));
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  beforeEach(() => {
    events.length = 0;
  });

  it.each(['application/x-www-form-urlencoded', 'application/octet-stream', 'application/yaml', 'APPLICATION/X-YAML; charset=utf-8'])(
    'a body sent as %s reaches the handler base64-encoded, isBase64Encoded true',
    async (contentType) => {
      // Act
      const answer = await post({ 'content-type': contentType });
      // Assess
      expect(answer.status).toBe(200);
      const [event] = events;
      expect(event?.isBase64Encoded).toBe(true);
      expect(Buffer.from(event?.body ?? '', 'base64').toString('utf8')).toBe(body);
    },
  );

  it('a body sent with no content type reaches the handler base64-encoded', async () => {
    // Act
    await post({});
    // Assess
    expect(events[0]?.isBase64Encoded).toBe(true);
    expect(Buffer.from(events[0]?.body ?? '', 'base64').toString('utf8')).toBe(body);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', 'text/plain', 'application/xml', 'application/javascript'])(
    'a body sent as %s reaches the handler as text',
    async (contentType) => {
      // Act
      await post({ 'content-type': contentType });
      // Assess
      expect(events[0]).toMatchObject({ isBase64Encoded: false, body });
    },
  );
});
