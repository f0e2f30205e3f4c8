import type middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { logger, metrics } from '../telemetry/powertools.js';

/** Powertools context on every log line, metrics flushed per invocation. */
export function httpLogger(): middy.MiddlewareObj[] {
  return [injectLambdaContext(logger, { resetKeys: true }), logMetrics(metrics)];
}

httpLogger.logUnexpected = (error: unknown, event: APIGatewayProxyEventV2) => {
  logger.error('unexpected error', { error: error as Error, route: event.routeKey, path: event.rawPath });
};
