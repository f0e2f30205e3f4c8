import { describe, expect, it } from 'vitest';
import { agentLimitSeconds, commandLimitSeconds, resolvePoolConfig } from '../../../../shared/domain/pools/pool-config.js';
import { parsePoolSubmission } from '../../../../shared/contract/parse-pool-submission.js';
import { InvalidPoolConfigError } from '../../../../shared/domain/pools/pool-errors.js';

const template: Array<Record<string, string>> = [{ claude: '/analyze ${item}' }, { shell: 'validate ${item.id}' }, { claude: '/report ${item}' }, { goal_seek: 'x' }];

describe('pool config (seed 003 names, seed 002 defaults)', () => {
  it('fills every default of the seeds', () => {
    // Act
    const config = resolvePoolConfig({});
    // Assess
    expect(config).toEqual({
      agent_timeout_secs: 900,
      delegation_timeout_secs: 600,
      agent_template: [],
      timeout_config: { timeout_policy: 'per_agent', cleanup_grace_period_secs: 30, timeout_action: 'dlq', enable_monitoring: true, command_timeouts: {} },
      checkpoint_interval_secs: 300,
      checkpoint_timeout_secs: 30,
      stall_threshold: 3,
      timeout_escalation: 3,
      limitsGiven: { agent_timeout_secs: false, delegation_timeout_secs: false },
    });
  });

  it('looks a command limit up by type_index, then type, then the default (claude 300, shell 60, other 120)', () => {
    // Prepare
    const config = resolvePoolConfig({ agent_template: template, timeout_config: { command_timeouts: { claude: 200, claude_0: 600 } } });
    const defaults = resolvePoolConfig({});
    // Assess
    expect(commandLimitSeconds(config, 'claude', 0)).toBe(600);
    expect(commandLimitSeconds(config, 'claude', 2)).toBe(200);
    expect(commandLimitSeconds(config, 'shell', 1)).toBe(60);
    expect(commandLimitSeconds(defaults, 'claude', 0)).toBe(300);
    expect(commandLimitSeconds(defaults, 'goal_seek', 3)).toBe(120);
  });

  it('derives a missing agent limit as the sum of the command limits, not 60 s per command', () => {
    // Act
    const config = resolvePoolConfig({ agent_template: template });
    // Assess: 300 + 60 + 300 + 120
    expect(config.agent_timeout_secs).toBe(780);
    expect(resolvePoolConfig({ agent_template: template, agent_timeout_secs: 42 }).agent_timeout_secs).toBe(42);
  });

  it('gives experts the delegation limit, per_command no default agent deadline, and an item limit precedence', () => {
    // Prepare
    const config = resolvePoolConfig({});
    const perCommand = resolvePoolConfig({ timeout_config: { timeout_policy: 'per_command' } });
    // Assess
    expect(agentLimitSeconds(config, 'agent', undefined)).toBe(900);
    expect(agentLimitSeconds(config, 'expert', undefined)).toBe(600);
    expect(agentLimitSeconds(perCommand, 'agent', undefined)).toBeNull();
    expect(agentLimitSeconds(perCommand, 'expert', undefined)).toBeNull();
    expect(agentLimitSeconds(perCommand, 'agent', 1800)).toBe(1800);
  });

  // Seed 003 schedules the agent timeout under every policy: the contract's "under per_command there
  // is no agent deadline" is about the default limit only (pool-config.ts, agentLimitSeconds).
  it('under per_command a given limit applies: agent_timeout_secs to agents and experts, delegation_timeout_secs to experts', () => {
    // Prepare
    const perCommand = { timeout_policy: 'per_command' as const };
    const agentGiven = resolvePoolConfig({ agent_timeout_secs: 600, timeout_config: perCommand });
    const delegationGiven = resolvePoolConfig({ delegation_timeout_secs: 1200, timeout_config: perCommand });
    // The given value may equal the default (here the sum of the command limits, 60 s): it is still given
    const givenAsDefault = resolvePoolConfig({ agent_timeout_secs: 60, agent_template: [{ shell: 'x' }], timeout_config: perCommand });
    // Assess
    expect([agentLimitSeconds(agentGiven, 'agent', undefined), agentLimitSeconds(agentGiven, 'expert', undefined)]).toEqual([600, 600]);
    expect([agentLimitSeconds(delegationGiven, 'agent', undefined), agentLimitSeconds(delegationGiven, 'expert', undefined)]).toEqual([null, 1200]);
    expect(agentLimitSeconds(givenAsDefault, 'agent', undefined)).toBe(60);
  });

  // Seed 002's rule, "Experts have a shorter timeout (10 min) than baseline agents (15 min)", over its
  // example (dispatch_expert passes DELEGATION_TIMEOUT whatever AGENT_TIMEOUT is): an expert's focused
  // request never gets longer than a whole task would.
  it('an expert never gets longer than an agent of the same pool: the lesser of delegation_timeout_secs and the agent limit', () => {
    // Prepare
    const lowerAgentLimit = resolvePoolConfig({ agent_timeout_secs: 300 });
    const derivedAgentLimit = resolvePoolConfig({ agent_template: [{ shell: 'validate ${item.id}' }] });
    const higherAgentLimit = resolvePoolConfig({ agent_timeout_secs: 1_200, timeout_config: { timeout_policy: 'hybrid' } });
    const perCommandAgentsOnly = resolvePoolConfig({ agent_timeout_secs: 300, timeout_config: { timeout_policy: 'per_command' } });
    // Assess
    expect(agentLimitSeconds(lowerAgentLimit, 'expert', undefined)).toBe(300);
    expect(agentLimitSeconds(derivedAgentLimit, 'expert', undefined)).toBe(60);
    expect(agentLimitSeconds(higherAgentLimit, 'expert', undefined)).toBe(600);
    expect(agentLimitSeconds(perCommandAgentsOnly, 'expert', undefined)).toBe(300);
    // A limit a human gave the item still replaces both
    expect(agentLimitSeconds(lowerAgentLimit, 'expert', 1_800)).toBe(1_800);
  });

  it('a per_command pool stored before limitsGiven was kept: a limit other than its default was given; one equal to it reads as the default', () => {
    // Prepare: configs as such pools stored them, without limitsGiven
    const stored = (input: Parameters<typeof resolvePoolConfig>[0]) => {
      const { limitsGiven: _absent, ...config } = resolvePoolConfig({ ...input, timeout_config: { timeout_policy: 'per_command' } });
      return config;
    };
    // Assess
    expect(agentLimitSeconds(stored({ agent_timeout_secs: 600 }), 'agent', undefined)).toBe(600);
    expect(agentLimitSeconds(stored({ delegation_timeout_secs: 1200 }), 'expert', undefined)).toBe(1200);
    expect(agentLimitSeconds(stored({ agent_timeout_secs: 900 }), 'agent', undefined)).toBeNull();
    expect(agentLimitSeconds(stored({ agent_template: [{ shell: 'x' }] }), 'agent', undefined)).toBeNull();
  });

  it("reads spec 113's YAML map block and ignores its other map keys", () => {
    // Prepare
    const yaml = [
      'name: example-with-timeout-config',
      'mode: mapreduce',
      'poolId: yaml-pool',
      'items:',
      '  - itemId: a',
      'map:',
      '  input: "large-dataset.json"',
      '  json_path: "$.items[*]"',
      '  agent_timeout_secs: 600',
      '  timeout_config:',
      '    timeout_policy: hybrid',
      '    command_timeouts:',
      '      claude_0: 600',
      '  agent_template:',
      "    - claude: \"/analyze-complex-item '${item}'\"",
      '    - shell: "validate-results ${item.id}"',
      'reduce:',
      '  - claude: "/summarize-results ${map.results}"',
    ].join('\n');
    // Act
    const submission = parsePoolSubmission(yaml, 'application/yaml');
    // Assess
    expect(submission.poolId).toBe('yaml-pool');
    expect(submission.config).toEqual({
      agent_timeout_secs: 600,
      timeout_config: { timeout_policy: 'hybrid', command_timeouts: { claude_0: 600 } },
      agent_template: [{ claude: "/analyze-complex-item '${item}'" }, { shell: 'validate-results ${item.id}' }],
    });
  });

  it('refuses a bad config whole, one detail per bad field with the allowed values', () => {
    // Prepare
    const body = JSON.stringify({
      items: [{ itemId: 'a' }],
      config: { timeout_config: { timeout_policy: 'sometimes', timeout_action: 'explode' }, stall_threshold: 0, colour: 'red' },
    });
    // Act
    let error: unknown;
    try {
      parsePoolSubmission(body, 'application/json');
    } catch (caught) {
      error = caught;
    }
    // Assess
    expect(error).toBeInstanceOf(InvalidPoolConfigError);
    const details = (error as InvalidPoolConfigError).details as Array<{ field: string; allowed?: unknown[] }>;
    expect(details.map((detail) => detail.field).sort()).toEqual([
      'config.colour',
      'config.stall_threshold',
      'config.timeout_config.timeout_action',
      'config.timeout_config.timeout_policy',
    ]);
    expect(details.find((d) => d.field === 'config.timeout_config.timeout_action')?.allowed).toEqual(['dlq', 'skip', 'fail', 'graceful_terminate', 'retry']);
  });
});
