import type { RemovalPolicy } from 'aws-cdk-lib';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { acknowledgeNag } from './nag-acknowledgements.js';

/** The region's HMAC key for workflow tokens (`shared/app/workflow-tokens.ts`), generated at deploy time. */
export class WorkflowTokenSecret extends Construct {
  public readonly secret: Secret;

  constructor(scope: Construct, id: string, props: { removalPolicy: RemovalPolicy }) {
    super(scope, id);
    this.secret = new Secret(this, 'Secret', {
      description: 'Vigil: HMAC key that signs and verifies per-workflow worker tokens (x-vigil-token)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: props.removalPolicy,
    });
    acknowledgeNag(
      this.secret,
      'SMG4',
      'Rotating the HMAC key invalidates every worker token already issued for running jobs; automatic rotation needs a two-key verification window in the handlers first. Rotate manually between job generations.',
    );
  }
}
