import { cancelBody, emptyBody, jobPath, submitJobBody, tokensQuery, jobQuery, workerPath } from '../contract/manager-requests.js';
import {
  cancelAnswer,
  healthAnswer,
  jobAnswer,
  submittedJobAnswer,
  takeoverAnswer,
  tokenPageAnswer,
  workerFailureAnswer,
} from '../contract/manager-responses.js';
import type { Route } from './http-routes.js';
import { openApiRoute } from './openapi-route.js';
import { poolAgentRoutes, poolClientRoutes } from '../../functions/pools/routes.js';
import { historyRoutes } from './history-routes.js';
import { completeRoute, extensionRoute, progressRoute } from './job-worker-routes.js';

/** The region manager's routes (README "HTTP API"), served by the same handler modules Lambda runs. */
export const managerRoutes: Route[] = [
  {
    method: 'GET',
    path: '/health',
    doc: { summary: 'Liveness probe', auth: 'public', answers: { 200: { description: 'Up', schema: healthAnswer } } },
    handler: async () => (await import('../../functions/api/health.js')).handler,
  },
  openApiRoute('region', async () => (await import('../../functions/api/openapi.js')).handler),
  {
    method: 'POST',
    path: '/jobs',
    doc: {
      summary: 'Submit a job (idempotent on jobId)',
      auth: 'iam',
      body: submitJobBody,
      answers: {
        201: { description: 'Accepted; each workflow with its worker token', schema: submittedJobAnswer },
        200: { description: 'The same jobId and body were already accepted', schema: submittedJobAnswer },
      },
      errors: [409, 503],
    },
    handler: async () => (await import('../../functions/api/submit-job.js')).handler,
  },
  {
    method: 'GET',
    path: '/jobs/{jobId}',
    doc: {
      summary: "A job with its timeout tracking and a page of its workflows (up to 1,000; pass the previous answer's nextCursor for the next)",
      auth: 'iam',
      path: jobPath,
      query: jobQuery,
      answers: { 200: { description: 'The job', schema: jobAnswer } },
    },
    handler: async () => (await import('../../functions/api/get-job.js')).handler,
  },
  {
    method: 'GET',
    path: '/jobs/{jobId}/tokens',
    doc: {
      summary: "A page of a large job's worker tokens (pass the previous answer's nextCursor)",
      auth: 'iam',
      path: jobPath,
      query: tokensQuery,
      answers: { 200: { description: 'Up to 1,000 workflows with their tokens, and nextCursor when more follow', schema: tokenPageAnswer } },
    },
    handler: async () => (await import('../../functions/api/get-job-tokens.js')).handler,
  },
  progressRoute,
  completeRoute,
  {
    method: 'POST',
    path: '/jobs/{jobId}/cancel',
    doc: {
      summary: 'Cancel a running job',
      auth: 'iam',
      path: jobPath,
      body: cancelBody,
      answers: { 200: { description: 'Cancelled', schema: cancelAnswer } },
      errors: [409, 503],
    },
    handler: async () => (await import('../../functions/api/cancel-job.js')).handler,
  },
  {
    method: 'POST',
    path: '/jobs/{jobId}/takeover',
    doc: {
      summary: 'Leadership transfer: bump the fence token',
      auth: 'iam',
      path: jobPath,
      body: emptyBody,
      answers: { 200: { description: 'The new fence token', schema: takeoverAnswer } },
      errors: [409, 503],
    },
    handler: async () => (await import('../../functions/api/take-over-job.js')).handler,
  },
  extensionRoute,
  {
    method: 'POST',
    path: '/workers/{workerId}/failure',
    doc: {
      summary: 'Report a worker as failed',
      auth: 'iam',
      path: workerPath,
      body: emptyBody,
      answers: { 200: { description: 'The jobs updated', schema: workerFailureAnswer } },
    },
    handler: async () => (await import('../../functions/api/report-worker-failure.js')).handler,
  },
  ...historyRoutes({
    listJobs: async () => (await import('../../functions/api/list-jobs.js')).handler,
    getJobHistory: async () => (await import('../../functions/api/get-job-history.js')).handler,
  }),
  ...poolClientRoutes,
  ...poolAgentRoutes,
];
