import { Tags, Validations, type App, type Environment } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { GATE_STACK_NAME, regionStackName } from './config/physical-names.js';
import { readVigilConfig, type VigilConfig } from './config/vigil-config.js';
import { GateStack } from './stacks/gate-stack.js';
import { RegionalStack } from './stacks/regional-stack.js';

export interface VigilStacks {
  readonly config: VigilConfig;
  readonly regional: readonly RegionalStack[];
  readonly gate: GateStack;
}

/**
 * The whole deployment: one regional stack per region, then the gate. The gate depends on every
 * regional stack, so `cdk deploy --all` creates the regional buses and `vigil-submit-from-gate`
 * functions before any gate rule or call targets them. The regions' forwarding rules only need
 * the gate bus's ARN, which is fixed; an event sent before the gate exists ends in the forwarding
 * rule's (alarmed) DLQ, at once for an error EventBridge does not retry, and is redriven from there.
 */
export function buildVigil(app: App, env: NodeJS.ProcessEnv = process.env): VigilStacks {
  const config = readVigilConfig(app.node, env);
  const environmentIn = (region: string): Environment => (config.account ? { account: config.account, region } : { region });
  const regional = config.regions.map(
    (region) =>
      new RegionalStack(app, regionStackName(region), {
        env: environmentIn(region),
        config,
        description: `Vigil region manager (${region})`,
      }),
  );
  const gate = new GateStack(app, GATE_STACK_NAME, {
    env: environmentIn(config.gateRegion),
    config,
    description: `Vigil gate (${config.gateRegion}) for ${config.regions.join(', ')}`,
  });
  for (const stack of regional) gate.addStackDependency(stack, 'the gate forwards decisions to, and submits through, every region');
  Tags.of(app).add('project', 'vigil');
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { config, regional, gate };
}
