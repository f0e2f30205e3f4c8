import type { RemovalPolicy } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { SystemLogLevel } from '../config/vigil-config.js';
import { KeySecretRotation } from './key-secret-rotation.js';

export interface KeySecretProps {
  readonly removalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  readonly systemLogLevel: SystemLogLevel;
}

/**
 * The region's HMAC keys for workflow tokens (`shared/app/workflow-tokens.ts`), generated at deploy
 * time as one bare key and rotated into a key ring; its page cursors' keys are derived from them
 * (`shared/app/page-cursors.ts`).
 */
export class WorkflowTokenSecret extends Construct {
  public readonly secret: Secret;
  public readonly rotation: KeySecretRotation;

  constructor(scope: Construct, id: string, props: KeySecretProps) {
    super(scope, id);
    this.secret = generatedKey(this, 'Vigil: HMAC key ring that signs and verifies per-workflow worker tokens (x-vigil-token); page cursors are sealed under keys derived from it', props.removalPolicy);
    this.rotation = rotationOf(this, this.secret, props);
  }
}

/** The gate's keys, generated at deploy time and rotated: its page cursors' keys are derived from them (the gate signs no tokens). */
export class PageCursorSecret extends Construct {
  public readonly secret: Secret;
  public readonly rotation: KeySecretRotation;

  constructor(scope: Construct, id: string, props: KeySecretProps) {
    super(scope, id);
    this.secret = generatedKey(this, "Vigil: key ring the gate's page cursors (GET /jobs nextCursor) are sealed under", props.removalPolicy);
    this.rotation = rotationOf(this, this.secret, props);
  }
}

const rotationOf = (scope: Construct, secret: Secret, props: KeySecretProps) =>
  new KeySecretRotation(scope, 'Rotation', { secret, logRemovalPolicy: props.removalPolicy, tracing: props.tracing, systemLogLevel: props.systemLogLevel });

const generatedKey = (scope: Construct, description: string, removalPolicy: RemovalPolicy) =>
  new Secret(scope, 'Secret', { description, generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false }, removalPolicy });
