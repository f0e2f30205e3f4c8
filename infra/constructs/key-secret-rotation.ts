import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { CfnRotationSchedule, type Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { SystemLogLevel } from '../config/vigil-config.js';
import { VigilFunction } from './vigil-function.js';

export interface KeySecretRotationProps {
  readonly secret: Secret;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  readonly systemLogLevel: SystemLogLevel;
}

/** Every 30 days a key is added to the secret's key ring (functions/secrets/rotate-key-secret.ts); none a live token names is removed. */
const KEY_ROTATION_INTERVAL = Duration.days(30);

/**
 * The key secret's rotation: its own function, and a schedule. Built from the CloudFormation
 * resource rather than `addRotationSchedule`, which also grants `secretsmanager:GetRandomPassword`
 * on `*`: the function draws its keys from `crypto.randomBytes` and needs only this secret.
 */
export class KeySecretRotation extends Construct {
  public readonly fn: VigilFunction;

  constructor(scope: Construct, id: string, props: KeySecretRotationProps) {
    super(scope, id);
    const { secret } = props;
    this.fn = new VigilFunction(this, 'Function', {
      entry: 'functions/secrets/rotate-key-secret.ts',
      description: `Vigil: rotates a key secret (${secret.node.path}), adding a key to its ring`,
      logRemovalPolicy: props.logRemovalPolicy,
      tracing: props.tracing,
      systemLogLevel: props.systemLogLevel,
      timeout: Duration.seconds(30),
    });
    this.fn.handler.addToRolePolicy(
      new PolicyStatement({
        actions: ['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:UpdateSecretVersionStage'],
        resources: [secret.secretArn],
      }),
    );
    // Secrets Manager invokes the function synchronously and reports a failed step itself: no DLQ to feed.
    this.fn.handler.addPermission('InvokedBySecretsManager', {
      principal: new ServicePrincipal('secretsmanager.amazonaws.com'),
      sourceArn: secret.secretArn,
    });
    const schedule = new CfnRotationSchedule(this, 'Schedule', {
      secretId: secret.secretArn,
      rotationLambdaArn: this.fn.handler.functionArn,
      rotationRules: { scheduleExpression: `rate(${KEY_ROTATION_INTERVAL.toDays()} days)` },
      // The first rotation waits for the schedule: by then no function reads the secret as a bare key.
      rotateImmediatelyOnUpdate: false,
    });
    schedule.node.addDependency(this.fn.policy);
    const permission = this.fn.handler.permissionsNode.tryFindChild('InvokedBySecretsManager');
    if (permission) schedule.node.addDependency(permission);
  }
}
