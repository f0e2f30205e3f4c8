import type { Route } from './http-routes.js';

/** Agent fleets (seeds 002 and 003): the same handler modules the regional stack deploys. */
export const poolRoutes: Route[] = [
  { method: 'POST', path: '/pools', handler: async () => (await import('../../functions/pools/create-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}', handler: async () => (await import('../../functions/pools/get-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/items/{itemId}', handler: async () => (await import('../../functions/pools/get-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/claims', handler: async () => (await import('../../functions/pools/claim-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/heartbeat', handler: async () => (await import('../../functions/pools/heartbeat.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/commands/{index}/start', handler: async () => (await import('../../functions/pools/start-command.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/commands/{index}/finish', handler: async () => (await import('../../functions/pools/finish-command.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/checkpoints', handler: async () => (await import('../../functions/pools/checkpoint.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/complete', handler: async () => (await import('../../functions/pools/complete-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/items/{itemId}/terminated', handler: async () => (await import('../../functions/pools/terminated.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/cancel', handler: async () => (await import('../../functions/pools/cancel-pool.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/dlq', handler: async () => (await import('../../functions/pools/list-dlq.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/dlq/{itemId}/retry', handler: async () => (await import('../../functions/pools/retry-dlq-item.js')).handler },
  { method: 'POST', path: '/pools/{poolId}/checkpoints/collect', handler: async () => (await import('../../functions/pools/start-collection.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/checkpoints/collect/{collectionId}', handler: async () => (await import('../../functions/pools/get-collection.js')).handler },
  { method: 'GET', path: '/pools/{poolId}/metrics', handler: async () => (await import('../../functions/pools/get-metrics.js')).handler },
  { method: 'GET', path: '/escalations', handler: async () => (await import('../../functions/pools/list-escalations.js')).handler },
  { method: 'POST', path: '/escalations/{escalationId}/answer', handler: async () => (await import('../../functions/pools/answer-escalation.js')).handler },
];
