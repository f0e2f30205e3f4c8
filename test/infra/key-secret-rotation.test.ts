import type { Stack } from 'aws-cdk-lib';
import type { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { beforeAll, describe, expect, it } from 'vitest';
import { KeySecretRotation } from '../../infra/constructs/key-secret-rotation.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { actionsOf, logicalId, resourcesOf, resourcesOfType, statementsOfRole } from './support/template-queries.js';

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil();
});

/** Each stack's key secret and the rotation built for it. */
function keySecrets(): { name: string; stack: Stack; secret: Secret; rotation: KeySecretRotation }[] {
  const [regional] = vigil.regional;
  if (!regional) throw new Error('no regional stack');
  return [
    { name: 'region token key', stack: regional, secret: regional.tokenSecret },
    { name: 'gate cursor key', stack: vigil.gate, secret: vigil.gate.cursorSecret },
  ].map((entry) => {
    const rotation = entry.secret.node.scope?.node.tryFindChild('Rotation');
    if (!(rotation instanceof KeySecretRotation)) throw new Error(`${entry.name} has no rotation`);
    return { ...entry, rotation };
  });
}

describe('the key secrets rotate every 30 days with a function granted only its own secret', () => {
  it('each key secret has one rotation schedule, every 30 days, with its rotation function, not rotated at deploy', () => {
    for (const { name, stack, secret, rotation } of keySecrets()) {
      // Act
      const schedules = Object.values(resourcesOfType(vigil.template(stack), 'AWS::SecretsManager::RotationSchedule'));
      // Assess
      expect(schedules.map((s) => s.Properties), name).toEqual([
        {
          SecretId: { Ref: logicalId(secret) },
          RotationLambdaARN: { 'Fn::GetAtt': [logicalId(rotation.fn.handler), 'Arn'] },
          RotationRules: { ScheduleExpression: 'rate(30 days)' },
          RotateImmediatelyOnUpdate: false,
        },
      ]);
    }
  });

  it("the rotation function's role may read, write and relabel its own secret and nothing else but its logs", () => {
    for (const { name, stack, secret, rotation } of keySecrets()) {
      // Act
      const statements = statementsOfRole(vigil.template(stack), logicalId(rotation.fn.role));
      const secretStatements = statements.filter((s) => actionsOf(s).some((action) => action.startsWith('secretsmanager:')));
      const others = statements.filter((s) => !secretStatements.includes(s)).flatMap(actionsOf);
      // Assess
      expect(secretStatements.flatMap(actionsOf).sort(), name).toEqual(['secretsmanager:DescribeSecret', 'secretsmanager:GetSecretValue', 'secretsmanager:PutSecretValue', 'secretsmanager:UpdateSecretVersionStage']);
      expect(secretStatements.flatMap(resourcesOf), name).toEqual([{ Ref: logicalId(secret) }]);
      expect(others.every((action) => action.startsWith('logs:')), `${name}: ${others.join(', ')}`).toBe(true);
    }
  });

  it('only Secrets Manager, for this secret, may invoke the rotation function', () => {
    for (const { name, stack, secret, rotation } of keySecrets()) {
      // Act
      const permissions = Object.values(resourcesOfType(vigil.template(stack), 'AWS::Lambda::Permission')).filter(
        (p) => JSON.stringify(p.Properties?.['FunctionName']) === JSON.stringify({ 'Fn::GetAtt': [logicalId(rotation.fn.handler), 'Arn'] }),
      );
      // Assess
      expect(permissions.map((p) => [p.Properties?.['Principal'], p.Properties?.['SourceArn']]), name).toEqual([['secretsmanager.amazonaws.com', { Ref: logicalId(secret) }]]);
    }
  });
});
