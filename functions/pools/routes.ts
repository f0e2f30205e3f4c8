import type { Route } from '../../shared/local/http-routes.js';

/** Agent routes: the attempt's token in `x-vigil-token` (API Gateway passes them through; the handler checks the token). */
export const poolAgentRoutes: Route[] = [
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/heartbeat', handler: async () => (await import('./heartbeat.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/commands/{index}/start', handler: async () => (await import('./start-command.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/commands/{index}/finish', handler: async () => (await import('./finish-command.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/checkpoints', handler: async () => (await import('./checkpoint.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/complete', handler: async () => (await import('./complete-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/terminated', handler: async () => (await import('./terminated.js')).handler },
];

/** Client routes: IAM-authorized on AWS, like the job client routes. */
export const poolClientRoutes: Route[] = [
  { method: 'POST', path: '/pools', handler: async () => (await import('./create-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}', handler: async () => (await import('./get-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/items/{itemId}', handler: async () => (await import('./get-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/claims', handler: async () => (await import('./claim-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/cancel', handler: async () => (await import('./cancel-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/dlq', handler: async () => (await import('./list-dlq.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/dlq/{itemId}/retry', handler: async () => (await import('./retry-dlq-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/checkpoints/collect', handler: async () => (await import('./start-collection.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/checkpoints/collect/{collectionId}', handler: async () => (await import('./get-collection.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/metrics', handler: async () => (await import('./get-metrics.js')).handler },
  { method: 'GET', path: '/escalations', handler: async () => (await import('./list-escalations.js')).handler },
  { method: 'POST', path: '/escalations/{escalationId}/answer', handler: async () => (await import('./answer-escalation.js')).handler },
];
