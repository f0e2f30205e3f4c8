import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { gateRoutes } from '../../../shared/local/local-gate.js';
import { managerRoutes } from '../../../shared/local/manager-routes.js';
import { openApiDocuments, serialized } from '../../../shared/local/openapi-documents.js';
import { httpEvent } from '../../app/support/http-events.js';
import { localContext } from '../../../shared/local/lambda-context.js';

const repoFile = (file: string) => readFileSync(new URL(`../../../${file}`, import.meta.url), 'utf8');

describe('the OpenAPI documents', () => {
  const generated = openApiDocuments();

  it.each(Object.keys(generated))('%s is checked in as generated from the route table (run npm run openapi)', (file) => {
    // Prepare
    const expected = serialized(generated[file as keyof typeof generated]);
    // Act
    const checkedIn = repoFile(file);
    // Assess
    expect(checkedIn).toBe(expected);
  });

  it.each([
    ['docs/openapi.json', managerRoutes],
    ['docs/openapi-gate.json', gateRoutes],
  ] as const)('%s describes every route its listener serves', (file, routes) => {
    // Prepare
    const document = JSON.parse(repoFile(file)) as { paths: Record<string, Record<string, unknown>> };
    // Act
    const missing = routes.filter((route) => document.paths[route.path]?.[route.method.toLowerCase()] === undefined);
    // Assess
    expect(missing.map((route) => `${route.method} ${route.path}`)).toEqual([]);
    expect(routes.length).toBeGreaterThan(3);
  });

  it('states the error shape, the worker-token scheme and IAM for client routes', () => {
    const document = generated['docs/openapi.json'];
    const progress = document.paths['/jobs/{jobId}/workflows/{workflowId}/progress']?.['post'] as { security: unknown; responses: Record<string, unknown> };
    const submit = document.paths['/jobs']?.['post'] as { security: unknown };
    expect(document.components.securitySchemes.workerToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-vigil-token' });
    expect(progress.security).toEqual([{ workerToken: [] }]);
    expect(Object.keys(progress.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404']));
    expect(submit.security).toEqual([{ sigv4: [] }]);
    expect(document.components.schemas.Error).toMatchObject({ required: ['error'] });
  });

  it('declares Retry-After on a 503, and a 503 wherever a token or sealed cursor is checked (keys_refreshing)', () => {
    // Prepare
    const region = generated['docs/openapi.json'];
    const gate = generated['docs/openapi-gate.json'];
    const operations = Object.entries(region.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation: operation as { tags: string[]; responses: Record<string, unknown> } })));
    // Act
    const workerRoutesWithout503 = operations.filter(({ operation }) => operation.tags.includes('worker') && !('503' in operation.responses)).map(({ method, path }) => `${method} ${path}`);
    const cursorListings = [region.paths['/jobs']?.['get'], region.paths['/escalations']?.['get'], gate.paths['/jobs']?.['get']] as Array<{ responses: Record<string, unknown> } | undefined>;
    // Assess
    expect(region.components.responses.Error503).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer', minimum: 1 } } } });
    expect(gate.components.responses.Error503).toMatchObject({ headers: { 'Retry-After': expect.anything() } });
    expect(operations.filter(({ operation }) => operation.tags.includes('worker')).length).toBeGreaterThan(5);
    expect(workerRoutesWithout503).toEqual([]);
    expect(cursorListings.map((listing) => listing?.responses['503'])).toEqual(Array(3).fill({ $ref: '#/components/responses/Error503' }));
  });

  it('declares each details entry as { field, message, allowed? } and nothing else, so a fuzzed refusal of another shape breaks it', () => {
    // Prepare
    const document = generated['docs/openapi.json'];
    // Act
    const error = document.components.schemas.Error as { properties: { error: { properties: { details: { anyOf: unknown[] } } } } };
    // Assess
    expect(error.properties.error.properties.details.anyOf).toContainEqual({
      type: 'array',
      items: expect.objectContaining({ required: ['field', 'message'], additionalProperties: false, properties: { field: expect.anything(), message: expect.anything(), allowed: expect.anything() } }),
    });
  });

  it.each([
    ['region', managerRoutes, 'docs/openapi.json'],
    ['gate', gateRoutes, 'docs/openapi-gate.json'],
  ] as const)('the %s handler of GET /openapi.json answers the checked-in document', async (_, routes, file) => {
    // Prepare
    const route = routes.find((candidate) => candidate.path === '/openapi.json');
    if (!route) throw new Error('no GET /openapi.json route');
    const handler = await route.handler();
    // Act
    const answer = await handler(httpEvent({ method: 'GET', route: '/openapi.json' }), localContext('openapi', 'us-east-1'));
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(answer.body ?? '')).toEqual(JSON.parse(repoFile(file)));
  });
});
