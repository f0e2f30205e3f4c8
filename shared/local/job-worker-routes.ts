import { completeBody, extensionBody, progressBody, workerPath, workflowPath } from '../contract/manager-requests.js';
import { completeAnswer, extensionAnswer, progressAnswer } from '../contract/manager-responses.js';
import type { Route } from './http-routes.js';

export const progressRoute: Route = {
  method: 'POST',
  path: '/jobs/{jobId}/workflows/{workflowId}/progress',
  doc: {
    summary: 'Report progress (resets the stuck clock); `cancel: true` tells the worker to stop',
    auth: 'worker',
    path: workflowPath,
    body: progressBody,
    answers: { 200: { description: 'The job status and deadline', schema: progressAnswer } },
    errors: [409, 503],
  },
  handler: async () => (await import('../../functions/api/report-progress.js')).handler,
};

export const completeRoute: Route = {
  method: 'POST',
  path: '/jobs/{jobId}/workflows/{workflowId}/complete',
  doc: {
    summary: "Record a workflow's outcome",
    auth: 'worker',
    path: workflowPath,
    body: completeBody,
    answers: { 200: { description: 'The workflow and job state', schema: completeAnswer } },
    errors: [409, 503],
  },
  handler: async () => (await import('../../functions/api/complete-workflow.js')).handler,
};

export const extensionRoute: Route = {
  method: 'POST',
  path: '/workers/{workerId}/extensions',
  doc: {
    summary: 'Request a deadline extension (AD-26)',
    auth: 'worker',
    path: workerPath,
    body: extensionBody,
    answers: { 200: { description: 'Granted or denied', schema: extensionAnswer } },
  },
  handler: async () => (await import('../../functions/api/request-extension.js')).handler,
};

/** The job routes a worker calls with its workflow token (no AWS credentials). */
export const jobWorkerRoutes: readonly Route[] = [progressRoute, completeRoute, extensionRoute];
