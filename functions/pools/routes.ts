import {
  answerBody,
  cancelPoolBody,
  checkpointBody,
  claimBody,
  collectionPath,
  commandFinishBody,
  commandPath,
  commandStartBody,
  completeItemBody,
  createPoolBody,
  dlqQuery,
  collectionQuery,
  dlqRetryBody,
  escalationPath,
  escalationsQuery,
  heartbeatBody,
  itemPath,
  poolPath,
  startCollectionBody,
  terminatedBody,
} from '../../shared/contract/pool-requests.js';
import {
  claimAnswer,
  collectionAnswer,
  collectionStartAnswer,
  commandStartAnswer,
  dlqAnswer,
  escalationsAnswer,
  heartbeatAnswer,
  itemAnswer,
  metricsAnswer,
  objectAnswer,
  poolAnswer,
} from '../../shared/contract/pool-responses.js';
import type { RouteDoc } from '../../shared/contract/route-doc.js';
import type * as z from '../../shared/validation/zod.js';
import type { Route } from '../../shared/local/http-routes.js';

const answer = (description: string, schema: z.ZodMiniType) => ({ 200: { description, schema } });

/** An agent call: the attempt's token, `{ agentId, attempt }` in the body; 409 for a stale attempt. */
const agentDoc = (summary: string, path: RouteDoc['path'], body: RouteDoc['body'], answers: RouteDoc['answers']): RouteDoc => ({
  summary,
  auth: 'worker',
  path,
  body,
  answers,
  errors: [409, 503],
});

/** Agent routes: the attempt's token in `x-vigil-token` (API Gateway passes them through; the handler checks the token). */
export const poolAgentRoutes: Route[] = [
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/heartbeat',
    doc: agentDoc('Heartbeat: continue, checkpoint or terminate', itemPath, heartbeatBody, answer('What to do', heartbeatAnswer)),
    handler: async () => (await import('./heartbeat.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/commands/{index}/start',
    doc: agentDoc("A command of the item's template starts", commandPath, commandStartBody, answer("The command's deadline", commandStartAnswer)),
    handler: async () => (await import('./start-command.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/commands/{index}/finish',
    doc: agentDoc('A command finished', commandPath, commandFinishBody, answer('Recorded', objectAnswer)),
    handler: async () => (await import('./finish-command.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/checkpoints',
    doc: agentDoc('A checkpoint (answers the open checkpoint request)', itemPath, checkpointBody, answer('Kept', objectAnswer)),
    handler: async () => (await import('./checkpoint.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/complete',
    doc: agentDoc("The attempt's outcome and result", itemPath, completeItemBody, answer('Recorded', objectAnswer)),
    handler: async () => (await import('./complete-item.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/items/{itemId}/terminated',
    doc: agentDoc('The agent stopped after terminate: cleanup outcome and partial result', itemPath, terminatedBody, answer('Recorded', objectAnswer)),
    handler: async () => (await import('./terminated.js')).handler,
  },
];

/** Client routes: IAM-authorized on AWS, like the job client routes. */
export const poolClientRoutes: Route[] = [
  {
    method: 'POST',
    path: '/pools',
    doc: {
      summary: "Create a pool (idempotent on poolId). JSON, or spec 113's YAML with content-type application/yaml",
      auth: 'iam',
      body: createPoolBody,
      answers: { 201: { description: 'Created, with the resolved config', schema: poolAnswer }, 200: { description: 'Already created with this body', schema: poolAnswer } },
      errors: [409, 503],
    },
    handler: async () => (await import('./create-pool.js')).handler,
  },
  {
    method: 'GET',
    path: '/pools/{poolId}',
    doc: { summary: 'A pool: status, item counts, config', auth: 'iam', path: poolPath, answers: answer('The pool', poolAnswer) },
    handler: async () => (await import('./get-pool.js')).handler,
  },
  {
    method: 'GET',
    path: '/pools/{poolId}/items/{itemId}',
    doc: { summary: 'An item with its attempts history', auth: 'iam', path: itemPath, answers: answer('The item', itemAnswer) },
    handler: async () => (await import('./get-item.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/claims',
    doc: {
      summary: "Claim an item as the pool's tenant: a new attempt with its token and deadlines",
      auth: 'iam',
      path: poolPath,
      body: claimBody,
      answers: { 200: { description: 'The attempt, with the heartbeat cadence its pool needs (heartbeatIntervalSeconds)', schema: claimAnswer }, 204: { description: 'No item is available' } },
      errors: [409, 503],
    },
    handler: async () => (await import('./claim-item.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/cancel',
    doc: { summary: 'Cancel a pool; every running agent is told to terminate (sent again: 200, they are woken again; a COMPLETED or FAILED pool: 409)', auth: 'iam', path: poolPath, body: cancelPoolBody, answers: answer('Cancelled', objectAnswer), errors: [409, 503] },
    handler: async () => (await import('./cancel-pool.js')).handler,
  },
  {
    method: 'GET',
    path: '/pools/{poolId}/dlq',
    doc: { summary: 'Dead-lettered items with their history', auth: 'iam', path: poolPath, query: dlqQuery, answers: answer('The items', dlqAnswer) },
    handler: async () => (await import('./list-dlq.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/dlq/{itemId}/retry',
    doc: { summary: 'Make a dead-lettered item available again', auth: 'iam', path: itemPath, body: dlqRetryBody, answers: answer('Available again', objectAnswer), errors: [409, 503] },
    handler: async () => (await import('./retry-dlq-item.js')).handler,
  },
  {
    method: 'POST',
    path: '/pools/{poolId}/checkpoints/collect',
    doc: { summary: 'Ask every running agent for a checkpoint', auth: 'iam', path: poolPath, body: startCollectionBody, answers: { 202: { description: 'Collecting', schema: collectionStartAnswer } }, errors: [409, 503] },
    handler: async () => (await import('./start-collection.js')).handler,
  },
  {
    method: 'GET',
    path: '/pools/{poolId}/checkpoints/collect/{collectionId}',
    doc: { summary: 'A checkpoint collection, one page of who answered and who did not (?cursor=nextCursor for the rest)', auth: 'iam', path: collectionPath, query: collectionQuery, answers: answer('The collection', collectionAnswer) },
    handler: async () => (await import('./get-collection.js')).handler,
  },
  {
    method: 'GET',
    path: '/pools/{poolId}/metrics',
    doc: { summary: "A pool's timeout metrics (seed 003 §3)", auth: 'iam', path: poolPath, answers: answer('The metrics', metricsAnswer) },
    handler: async () => (await import('./get-metrics.js')).handler,
  },
  {
    method: 'GET',
    path: '/escalations',
    // A sealed cursor under a key rotated in moments ago: 503 `keys_refreshing`.
    doc: { summary: "The caller's tenant's escalations, of one pool with ?poolId=", auth: 'iam', query: escalationsQuery, answers: answer('The escalations', escalationsAnswer), errors: [503] },
    handler: async () => (await import('./list-escalations.js')).handler,
  },
  {
    method: 'POST',
    path: '/escalations/{escalationId}/answer',
    doc: { summary: 'Answer an escalation (applied at once)', auth: 'iam', path: escalationPath, body: answerBody, answers: answer('Applied', objectAnswer), errors: [409, 503] },
    handler: async () => (await import('./answer-escalation.js')).handler,
  },
];
