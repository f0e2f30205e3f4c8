import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context } from 'aws-lambda';
import { logger, metrics } from '../telemetry/powertools.js';

/**
 * Flushes the metrics an invocation recorded as one EMF line. Most invocations record none, and
 * Powertools' own middleware would warn on each of those.
 */
const flushMetrics = (): middy.MiddlewareObj => {
  const flush = async () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: flush, onError: flush };
};

/** Powertools context on every log line, metrics flushed once per invocation. */
export const observability = (): middy.MiddlewareObj[] => [injectLambdaContext(logger, { resetKeys: true }), flushMetrics()];

/** The middy stack of non-HTTP handlers (SQS, EventBridge, scheduled, direct invoke). */
export function lambdaHandler<Event, Result>(run: (event: Event, context: Context) => Promise<Result>) {
  return middy<Event, Result, Error, Context>().use(observability()).handler(run);
}
