import { listJobsQuery } from '../contract/history-requests.js';
import { jobHistoryAnswer, jobListAnswer } from '../contract/history-responses.js';
import { jobPath } from '../contract/manager-requests.js';
import type { HttpLambda, Route } from './http-routes.js';

type Handler = () => Promise<HttpLambda>;

/** The jobs list and the decision history (docs/console.md), on a region manager and on the gate alike. */
export const historyRoutes = (handlers: { listJobs: Handler; getJobHistory: Handler }): Route[] => [
  {
    method: 'GET',
    path: '/jobs',
    doc: {
      summary: 'The newest jobs first, filterable by status, one page at a time (jobs submitted in the last 30 days)',
      auth: 'iam',
      query: listJobsQuery,
      answers: { 200: { description: 'A page of jobs', schema: jobListAnswer } },
      // A sealed cursor under a key rotated in moments ago: 503 `keys_refreshing`.
      errors: [503],
    },
    handler: handlers.listJobs,
  },
  {
    method: 'GET',
    path: '/jobs/{jobId}/history',
    doc: {
      summary: "The job's decision history: submission, sampled progress and heartbeats, extensions, reports, decisions, takeovers, final status",
      auth: 'iam',
      path: jobPath,
      answers: { 200: { description: 'The history, bounded', schema: jobHistoryAnswer } },
    },
    handler: handlers.getJobHistory,
  },
];
