import type { Route } from './http-routes.js';

/** The region manager's routes (README "HTTP API"), served by the same handler modules Lambda runs. */
export const managerRoutes: Route[] = [
  { method: 'GET', path: '/health', handler: async () => (await import('../../functions/api/health.js')).handler },
  { method: 'POST', path: '/jobs', handler: async () => (await import('../../functions/api/submit-job.js')).handler },
  { method: 'GET', path: '/jobs/{jobId}', handler: async () => (await import('../../functions/api/get-job.js')).handler },
  { method: 'GET', path: '/jobs/{jobId}/tokens', handler: async () => (await import('../../functions/api/get-job-tokens.js')).handler },
  {
    method: 'POST',
    path: '/jobs/{jobId}/workflows/{workflowId}/progress',
    handler: async () => (await import('../../functions/api/report-progress.js')).handler,
  },
  {
    method: 'POST',
    path: '/jobs/{jobId}/workflows/{workflowId}/complete',
    handler: async () => (await import('../../functions/api/complete-workflow.js')).handler,
  },
  { method: 'POST', path: '/jobs/{jobId}/cancel', handler: async () => (await import('../../functions/api/cancel-job.js')).handler },
  { method: 'POST', path: '/jobs/{jobId}/takeover', handler: async () => (await import('../../functions/api/take-over-job.js')).handler },
  {
    method: 'POST',
    path: '/workers/{workerId}/extensions',
    handler: async () => (await import('../../functions/api/request-extension.js')).handler,
  },
  {
    method: 'POST',
    path: '/workers/{workerId}/failure',
    handler: async () => (await import('../../functions/api/report-worker-failure.js')).handler,
  },
];
