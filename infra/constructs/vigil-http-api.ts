import { Lazy, type RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { CfnStage, HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ClientRouteThrottle, WorkerRouteThrottles, type RouteThrottle } from '../config/route-throttles.js';
import { acknowledgeNag } from './nag-acknowledgements.js';
import { LOG_RETENTION, type VigilFunction } from './vigil-function.js';

export interface VigilHttpApiProps {
  readonly apiName: string;
  readonly description: string;
  readonly logRemovalPolicy: RemovalPolicy;
}

// One JSON object per request, so Logs Insights can filter by caller, route and status.
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    sourceIp: '$context.identity.sourceIp',
    caller: '$context.identity.userArn',
    routeKey: '$context.routeKey',
    path: '$context.path',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatencyMs: '$context.responseLatency',
    integrationLatencyMs: '$context.integration.latency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** A route's methods: a GET route is a HEAD route too, served by the GET's handler (shared/http/route-dispatch.ts); HTTP drops the body. */
const methodsOf = (method: HttpMethod): HttpMethod[] => (method === HttpMethod.GET ? [HttpMethod.GET, HttpMethod.HEAD] : [method]);

/**
 * An HTTP API with an access-logged `$default` stage. Every route states how it is authorized:
 * client routes by SigV4 (IAM), worker routes by the workflow token the handler verifies, and
 * the health check not at all. Routes without IAM authorization are throttled per route, the others
 * by the stage's default. Each GET route has a HEAD route beside it (a GET without its body, RFC 9110),
 * authorized the same way.
 *
 * An HTTP API has no gateway responses (a REST API's `GatewayResponse`): what API Gateway answers
 * itself stays its own `{"message":"…"}` (a refused IAM signature 403, a throttle 429, a body past
 * its 10 MB 413, a function that failed or ran past 30 s 500/503). The unknown route is the one such
 * answer it lets Vigil give: `addUnroutedRoute`.
 */
export class VigilHttpApi extends Construct {
  public readonly api: HttpApi;
  public readonly stage: HttpStage;
  public readonly accessLogs: LogGroup;
  private readonly iamAuthorizer = new HttpIamAuthorizer();
  /** Per route key (`POST /path`): the stage's route settings. */
  private readonly throttles = new Map<string, RouteThrottle>();

  constructor(scope: Construct, id: string, props: VigilHttpApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', { apiName: props.apiName, description: props.description, createDefaultStage: false });
    this.accessLogs = new LogGroup(this, 'AccessLogs', { retention: LOG_RETENTION, removalPolicy: props.logRemovalPolicy });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: { destination: new LogGroupLogDestination(this.accessLogs), format: ACCESS_LOG_FORMAT },
    });
    const cfnStage = this.stage.node.defaultChild;
    if (!(cfnStage instanceof CfnStage)) throw new Error(`${this.stage.node.path} has no CfnStage`);
    cfnStage.defaultRouteSettings = { throttlingRateLimit: ClientRouteThrottle.rateLimit, throttlingBurstLimit: ClientRouteThrottle.burstLimit };
    // Routes are added after the stage exists, so the settings are produced at synthesis.
    cfnStage.routeSettings = Lazy.any({
      produce: () =>
        this.throttles.size === 0
          ? undefined
          : Object.fromEntries(
              [...this.throttles].map(([routeKey, t]) => [routeKey, { ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit }]),
            ),
    });
  }

  get url(): string {
    return this.stage.url;
  }

  /** Callers sign with SigV4; only principals granted execute-api:Invoke get through. */
  addClientRoute(method: HttpMethod, path: string, fn: VigilFunction): HttpRoute[] {
    return this.route(method, path, fn, true);
  }

  /** Workers carry the per-workflow HMAC token in `x-vigil-token`; the handler rejects a missing or wrong one. */
  addWorkerRoute(method: HttpMethod, path: string, fn: VigilFunction, throttle: RouteThrottle): HttpRoute[] {
    return this.unsignedRoute(
      method,
      path,
      fn,
      throttle,
      'Worker route: the Lambda authorizes it by the per-workflow HMAC token in the x-vigil-token header (401/403 without a valid one); workers hold no AWS credentials.',
    );
  }

  /** The liveness probe; it reads no data. */
  addHealthRoute(fn: VigilFunction): HttpRoute[] {
    return this.unsignedRoute(
      HttpMethod.GET,
      '/health',
      fn,
      WorkerRouteThrottles.health,
      'GET /health is a public liveness probe for monitors; it touches no data.',
    );
  }

  /** `GET /openapi.json`: the API's own description, the same document the local listener serves. */
  addDocumentRoute(fn: VigilFunction): HttpRoute[] {
    return this.unsignedRoute(
      HttpMethod.GET,
      '/openapi.json',
      fn,
      WorkerRouteThrottles.health,
      'GET /openapi.json serves a static OpenAPI document bundled into the function; it touches no data.',
    );
  }

  /**
   * The `$default` route: every request no other route takes (an unknown path, a method its path does
   * not serve, OPTIONS) goes to `fn`, which answers in the contract's error shape as the local cloud
   * does, instead of API Gateway's own 404 `{"message":"Not Found"}`.
   */
  addUnroutedRoute(fn: VigilFunction): HttpRoute {
    const route = new HttpRoute(this.api, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration(`${fn.node.id}Integration`, fn.handler),
    });
    this.throttleUnsigned(
      [route],
      [HttpRouteKey.DEFAULT.key],
      WorkerRouteThrottles.unrouted,
      'The $default route answers requests no route takes (404 route_not_found, OPTIONS with Allow) from a bundled route list; it touches no data.',
    );
    return route;
  }

  private unsignedRoute(method: HttpMethod, path: string, fn: VigilFunction, throttle: RouteThrottle, whyNoAuthorizer: string): HttpRoute[] {
    const routes = this.route(method, path, fn, false);
    this.throttleUnsigned(
      routes,
      methodsOf(method).map((served) => `${served} ${path}`),
      throttle,
      whyNoAuthorizer,
    );
    return routes;
  }

  private throttleUnsigned(routes: HttpRoute[], routeKeys: string[], throttle: RouteThrottle, whyNoAuthorizer: string): void {
    for (const route of routes) {
      acknowledgeNag(route, 'APIG4', whyNoAuthorizer);
      // The stage's route settings name this route: API Gateway refuses them before the route exists,
      // and CloudFormation would otherwise create the two side by side (infra review).
      this.stage.node.addDependency(route);
    }
    for (const routeKey of routeKeys) this.throttles.set(routeKey, throttle);
  }

  private route(method: HttpMethod, path: string, fn: VigilFunction, signed: boolean): HttpRoute[] {
    const integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn.handler);
    return this.api.addRoutes({
      path,
      methods: methodsOf(method),
      integration,
      ...(signed ? { authorizer: this.iamAuthorizer } : {}),
    });
  }
}
