import type { RemovalPolicy } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledgeNag } from './nag-acknowledgements.js';

/**
 * The region's HMAC key for workflow tokens (`shared/app/workflow-tokens.ts`), generated at deploy
 * time; its page cursors' key is derived from it (`shared/app/page-cursors.ts`).
 */
export class WorkflowTokenSecret extends Construct {
  public readonly secret: Secret;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.secret = generatedKey(this, 'Vigil: HMAC key that signs and verifies per-workflow worker tokens (x-vigil-token); page cursors are sealed under a key derived from it', props.removalPolicy);
    acknowledgeNag(
      this.secret,
      'SMG4',
      'Rotating the HMAC key invalidates every worker token already issued for running jobs; automatic rotation needs a two-key verification window in the handlers first. Rotate manually between job generations.',
    );
  }
}

/** The gate's key, generated at deploy time: its page cursors' key is derived from it (the gate signs no tokens). */
export class PageCursorSecret extends Construct {
  public readonly secret: Secret;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.secret = generatedKey(this, "Vigil: key the gate's page cursors (GET /jobs nextCursor) are sealed under", props.removalPolicy);
    acknowledgeNag(this.secret, 'SMG4', 'Rotating the key only invalidates page cursors already given out: a client starts its listing again. Rotate manually.');
  }
}

const generatedKey = (scope: Construct, description: string, removalPolicy: RemovalPolicy) =>
  new Secret(scope, 'Secret', { description, generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false }, removalPolicy });
