import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Policy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { entryPath, repoRoot } from '../config/repo-paths.js';
import type { SystemLogLevel as SystemLogLevelName } from '../config/vigil-config.js';
import { acknowledgeNag } from './nag-acknowledgements.js';

export interface VigilFunctionProps {
  /** Handler file relative to the repository root; it exports `handler`. */
  readonly entry: string;
  readonly description: string;
  readonly environment?: Readonly<Record<string, string>>;
  readonly functionName?: string;
  readonly timeout?: Duration;
  readonly logRemovalPolicy: RemovalPolicy;
  /** Active X-Ray tracing (context `tracing`); off, the role gets no X-Ray grant. */
  readonly tracing: boolean;
  /** Lambda's own records kept (context `systemLogLevel`); the function's logs are JSON either way. */
  readonly systemLogLevel: SystemLogLevelName;
  /** Taken from the account's unreserved pool for this function alone, and the most it runs at once. */
  readonly reservedConcurrency?: number;
}

export const LOG_RETENTION = RetentionDays.ONE_MONTH;

/** Environment every Vigil function gets, besides the names from `LambdaEnv`. */
export const commonEnvironment = {
  NODE_OPTIONS: '--enable-source-maps',
  POWERTOOLS_SERVICE_NAME: 'vigil',
  POWERTOOLS_METRICS_NAMESPACE: 'Vigil',
} as const;

/**
 * The gate's functions' Powertools service, and so the `service` dimension of their metrics. The gate
 * shares its region with a manager (cdk.json), and a metric is its namespace, name and dimensions per
 * account and region: under the managers' `vigil`, each stack's alarms would also go off for the other's.
 */
export const GATE_SERVICE_NAME = 'vigil-gate';

// The bundle is ESM; some CommonJS dependencies still call require(), which ESM lacks.
const ESM_REQUIRE_BANNER =
  "import { createRequire as vigilCreateRequire } from 'node:module'; const require = vigilCreateRequire(import.meta.url);";

/** How every Vigil function is bundled (test/infra/lambda-bundles.test.ts builds and loads each bundle with the same). */
export const VIGIL_BUNDLING = {
  format: OutputFormat.ESM,
  target: 'node22',
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // Pin the SDK the tests ran against instead of whatever the runtime ships.
  bundleAwsSDK: true,
} satisfies BundlingOptions;

/**
 * A Vigil Lambda: nodejs22.x on ARM64, one minified ESM bundle with source maps, its own log group
 * with retention, X-Ray tracing when asked for, and a role that starts with nothing but write access to that
 * log group (no AWSLambdaBasicExecutionRole). Callers add grants for what the handler does.
 */
export class VigilFunction extends Construct {
  /** Its handler file relative to the repository root (`functions/api/get-job.ts`). */
  public readonly entry: string;
  public readonly handler: NodejsFunction;
  public readonly role: Role;
  /**
   * The role's inline policy, where every grant to this function lands: acknowledgements of its
   * IAM5 findings are pinned here, not on the role or the stack.
   */
  public readonly policy: Policy;
  public readonly logGroup: LogGroup;
  public readonly reservedConcurrency: number | undefined;

  constructor(scope: Construct, id: string, props: VigilFunctionProps) {
    super(scope, id);
    this.entry = props.entry;
    this.reservedConcurrency = props.reservedConcurrency;
    this.logGroup = new LogGroup(this, 'Logs', { retention: LOG_RETENTION, removalPolicy: props.logRemovalPolicy });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: iamDescription(`Execution role of ${props.description}`),
    });
    this.logGroup.grantWrite(this.role);
    const policy = this.role.node.tryFindChild('DefaultPolicy');
    if (!(policy instanceof Policy)) throw new Error(`${this.role.node.path} has no default policy after its first grant`);
    this.policy = policy;
    this.handler = new NodejsFunction(this, 'Handler', {
      entry: entryPath(props.entry),
      handler: 'handler',
      projectRoot: repoRoot,
      depsLockFilePath: `${repoRoot}package-lock.json`,
      description: props.description,
      ...(props.functionName !== undefined ? { functionName: props.functionName } : {}),
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      // CPU scales with memory; 512 MB keeps cold starts of the ~1 MB bundles short at little cost.
      memorySize: 512,
      timeout: props.timeout ?? Duration.seconds(10),
      ...(props.reservedConcurrency !== undefined ? { reservedConcurrentExecutions: props.reservedConcurrency } : {}),
      role: this.role,
      logGroup: this.logGroup,
      // JSON lines (Powertools already writes them) let Lambda filter by level: Vigil's own
      // decisions and errors at INFO and above, and of Lambda's records only what the context keeps.
      loggingFormat: LoggingFormat.JSON,
      applicationLogLevelV2: ApplicationLogLevel.INFO,
      systemLogLevelV2: SystemLogLevel[props.systemLogLevel],
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      awsSdkConnectionReuse: false,
      environment: { ...commonEnvironment, ...props.environment },
      bundling: VIGIL_BUNDLING,
    });
    if (props.tracing) {
      acknowledgeNag(
        this.policy,
        'IAM5[Resource::*]',
        'Active X-Ray tracing needs xray:PutTraceSegments/PutTelemetryRecords, which cannot be scoped to a resource.',
      );
    }
    acknowledgeNag(
      this.handler,
      'L1',
      'The project pins nodejs22.x, the runtime its tests cover; moving to nodejs24.x is a deliberate upgrade with its own test run.',
    );
  }
}

/** IAM takes a role description of at most 1,000 characters of Latin-1 (no "…"): anything else fails the deployment. */
export const iamDescription = (text: string): string => text.replace(/[^\u0009\u000A\u000D\u0020-\u007E\u00A1-\u00FF]/g, '?').slice(0, 1_000);
