/** Seed 003 §1 (spec 113's TimeoutConfig) and seed 002's timeout table, with the seeds' own names. */
/** The most checkpoint misses a config may allow before a stall. */
export const MAX_STALL_THRESHOLD = 1_000;

export const TIMEOUT_POLICIES = ['per_agent', 'per_command', 'hybrid'] as const;
export const TIMEOUT_ACTIONS = ['dlq', 'skip', 'fail', 'graceful_terminate', 'retry'] as const;
export type TimeoutPolicyName = (typeof TIMEOUT_POLICIES)[number];
export type TimeoutAction = (typeof TIMEOUT_ACTIONS)[number];
export type AgentKind = 'agent' | 'expert';

/** One step of `agent_template`: `{ claude: "/analyze ${item}" }`, `{ shell: "…" }`. */
export interface TemplateCommand {
  type: string;
  command: string;
}

export interface TimeoutConfig {
  timeout_policy: TimeoutPolicyName;
  cleanup_grace_period_secs: number;
  timeout_action: TimeoutAction;
  enable_monitoring: boolean;
  command_timeouts: Record<string, number>;
}

/** A pool's config with every default filled in. */
export interface PoolConfig {
  /** Given, else derived from the template, else seed 002's 900 s. Experts use `delegation_timeout_secs`. */
  agent_timeout_secs: number;
  delegation_timeout_secs: number;
  agent_template: Array<Record<string, string>>;
  timeout_config: TimeoutConfig;
  checkpoint_interval_secs: number;
  checkpoint_timeout_secs: number;
  stall_threshold: number;
  timeout_escalation: number;
}

export type PoolConfigInput = Partial<Omit<PoolConfig, 'timeout_config'>> & { timeout_config?: Partial<TimeoutConfig> };

// Seed 002's table: agent 15 min, expert (delegation) 10 min, checkpoints every 5 min within 30 s.
export const DEFAULT_AGENT_TIMEOUT_SECS = 900;
export const DEFAULT_DELEGATION_TIMEOUT_SECS = 600;
export const DEFAULT_CHECKPOINT_INTERVAL_SECS = 300;
export const DEFAULT_CHECKPOINT_TIMEOUT_SECS = 30;
export const DEFAULT_STALL_THRESHOLD = 3;
export const DEFAULT_TIMEOUT_ESCALATION = 3;
// Seed 003: default_cleanup_grace_period() and get_command_timeout()'s defaults.
export const DEFAULT_CLEANUP_GRACE_PERIOD_SECS = 30;
const DEFAULT_COMMAND_LIMIT_SECS: Record<string, number> = { claude: 300, shell: 60 };
const OTHER_COMMAND_LIMIT_SECS = 120;

export const templateCommands = (config: Pick<PoolConfig, 'agent_template'>): TemplateCommand[] =>
  config.agent_template.flatMap((step) => Object.entries(step).map(([type, command]) => ({ type, command })));

/**
 * Seed 003's lookup order: `type_index` (`claude_0`), then the type, then the type's default. A limit
 * a human gave the item (`increase_timeout`, a redrive) is the least any of its commands gets.
 */
export function commandLimitSeconds(config: Pick<PoolConfig, 'timeout_config'>, type: string, index: number, itemLimitSeconds?: number): number {
  const overrides = config.timeout_config.command_timeouts;
  const configured = overrides[`${type}_${index}`] ?? overrides[type] ?? DEFAULT_COMMAND_LIMIT_SECS[type] ?? OTHER_COMMAND_LIMIT_SECS;
  return Math.max(configured, itemLimitSeconds ?? 0);
}

export function resolvePoolConfig(input: PoolConfigInput = {}): PoolConfig {
  const timeout = input.timeout_config ?? {};
  const resolved: Omit<PoolConfig, 'agent_timeout_secs'> = {
    delegation_timeout_secs: input.delegation_timeout_secs ?? DEFAULT_DELEGATION_TIMEOUT_SECS,
    agent_template: input.agent_template ?? [],
    timeout_config: {
      timeout_policy: timeout.timeout_policy ?? 'per_agent',
      cleanup_grace_period_secs: timeout.cleanup_grace_period_secs ?? DEFAULT_CLEANUP_GRACE_PERIOD_SECS,
      timeout_action: timeout.timeout_action ?? 'dlq',
      enable_monitoring: timeout.enable_monitoring ?? true,
      command_timeouts: timeout.command_timeouts ?? {},
    },
    checkpoint_interval_secs: input.checkpoint_interval_secs ?? DEFAULT_CHECKPOINT_INTERVAL_SECS,
    checkpoint_timeout_secs: input.checkpoint_timeout_secs ?? DEFAULT_CHECKPOINT_TIMEOUT_SECS,
    stall_threshold: input.stall_threshold ?? DEFAULT_STALL_THRESHOLD,
    timeout_escalation: input.timeout_escalation ?? DEFAULT_TIMEOUT_ESCALATION,
  };
  return { ...resolved, agent_timeout_secs: input.agent_timeout_secs ?? derivedAgentTimeoutSecs(resolved) ?? DEFAULT_AGENT_TIMEOUT_SECS };
}

/**
 * Spec 113's calculate_agent_timeout() derives a missing agent limit as 60 s per command, which
 * contradicts its own get_command_timeout() (300 s for a claude command): an agent would time out
 * before its first claude command could. We follow the rule that each command gets its own limit,
 * so the derived agent limit is the sum of the commands' limits.
 */
function derivedAgentTimeoutSecs(config: Omit<PoolConfig, 'agent_timeout_secs'>): number | undefined {
  const commands = templateCommands(config);
  if (commands.length === 0) return undefined;
  return commands.reduce((sum, command, index) => sum + commandLimitSeconds(config, command.type, index), 0);
}

/**
 * The agent limit of one attempt: the item's own limit (a redrive or `increase_timeout`), else the
 * expert's delegation limit (seed 002), else the pool's. Null under `per_command`: no agent deadline.
 */
export function agentLimitSeconds(config: PoolConfig, kind: AgentKind, itemLimitSeconds: number | undefined): number | null {
  // A limit a human set for this item (redrive, `increase_timeout`) applies under every policy.
  if (itemLimitSeconds !== undefined) return itemLimitSeconds;
  if (config.timeout_config.timeout_policy === 'per_command') return null;
  if (kind === 'expert') return config.delegation_timeout_secs;
  return config.agent_timeout_secs;
}

export const enforcesCommandDeadlines = (config: PoolConfig): boolean => config.timeout_config.timeout_policy !== 'per_agent';

/** Escalation counts timeouts under these actions only (never `skip` or `fail`). */
export const countsTowardEscalation = (action: TimeoutAction): boolean => action === 'retry' || action === 'dlq' || action === 'graceful_terminate';
