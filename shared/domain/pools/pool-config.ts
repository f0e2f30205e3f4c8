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
  /** Given, else derived from the template, else seed 002's 900 s. Experts use `delegation_timeout_secs`, never more than this (`agentLimitSeconds`). */
  agent_timeout_secs: number;
  delegation_timeout_secs: number;
  agent_template: Array<Record<string, string>>;
  timeout_config: TimeoutConfig;
  checkpoint_interval_secs: number;
  checkpoint_timeout_secs: number;
  stall_threshold: number;
  timeout_escalation: number;
  /**
   * Which agent limits the submission gave (the others are defaults): only a given one bounds an
   * attempt under `per_command` (`agentLimitSeconds`). Vigil's own, not a config key: the pool's view
   * leaves it out. Absent on pools created before it was kept (`limitGiven` infers it).
   */
  limitsGiven?: Record<GivenLimit, boolean>;
}

/** The agent limits a pool may give or leave to their defaults. */
export type GivenLimit = 'agent_timeout_secs' | 'delegation_timeout_secs';

export type PoolConfigInput = Partial<Omit<PoolConfig, 'timeout_config' | 'limitsGiven'>> & { timeout_config?: Partial<TimeoutConfig> };

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
  return {
    ...resolved,
    agent_timeout_secs: input.agent_timeout_secs ?? defaultAgentTimeoutSecs(resolved),
    limitsGiven: { agent_timeout_secs: input.agent_timeout_secs !== undefined, delegation_timeout_secs: input.delegation_timeout_secs !== undefined },
  };
}

const defaultAgentTimeoutSecs = (config: Omit<PoolConfig, 'agent_timeout_secs'>): number => derivedAgentTimeoutSecs(config) ?? DEFAULT_AGENT_TIMEOUT_SECS;

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
 * Whether the pool gave this limit. A pool created before `limitsGiven` was kept stored only the
 * resolved number: one other than its default was given; one equal to it is read as the default.
 */
export function limitGiven(config: PoolConfig, limit: GivenLimit): boolean {
  const given = config.limitsGiven?.[limit];
  if (given !== undefined) return given;
  return limit === 'agent_timeout_secs' ? config.agent_timeout_secs !== defaultAgentTimeoutSecs(config) : config.delegation_timeout_secs !== DEFAULT_DELEGATION_TIMEOUT_SECS;
}

/**
 * The agent limit of one attempt: the item's own limit (a redrive or `increase_timeout`), else the
 * pool's limit for the attempt's kind; null when the attempt has no agent deadline.
 *
 * The contract says "Without `agent_timeout_secs` the agent limit is the sum of the command limits
 * when there is a template, else 900 s (600 s for `kind: "expert"`); under `per_command` there is no
 * agent deadline". It does not say whether "under `per_command`" belongs to that sentence. Seed 003
 * decides: `register_agent_timeout` schedules the agent timeout (`schedule_timeout_check`) under every
 * policy, and per_command only adds each command's own check. So under `per_command` there is no
 * *default* agent deadline, and a limit the pool gave (`agent_timeout_secs`, or for an expert
 * `delegation_timeout_secs`) applies under every policy: without it, an agent idling between
 * commands would hold its item for ever.
 */
export function agentLimitSeconds(config: PoolConfig, kind: AgentKind, itemLimitSeconds: number | undefined): number | null {
  // A limit a human set for this item (redrive, `increase_timeout`) applies under every policy.
  if (itemLimitSeconds !== undefined) return itemLimitSeconds;
  const agentLimit = poolLimitSeconds(config, 'agent_timeout_secs');
  if (kind === 'agent') return agentLimit;
  // Seed 002's rule is "Experts have a shorter timeout (10 min) than baseline agents (15 min)": its
  // dispatch_expert example passes DELEGATION_TIMEOUT whatever AGENT_TIMEOUT is, but we follow the
  // rule over the example, so an expert (a focused request) never gets longer than an agent's whole task.
  const delegationLimit = poolLimitSeconds(config, 'delegation_timeout_secs');
  if (agentLimit === null) return delegationLimit;
  return delegationLimit === null ? agentLimit : Math.min(agentLimit, delegationLimit);
}

/** One of the pool's limits, or null under `per_command` when the pool left it to its default. */
const poolLimitSeconds = (config: PoolConfig, limit: GivenLimit): number | null =>
  config.timeout_config.timeout_policy === 'per_command' && !limitGiven(config, limit) ? null : config[limit];

export const enforcesCommandDeadlines = (config: PoolConfig): boolean => config.timeout_config.timeout_policy !== 'per_agent';

/** Escalation counts timeouts under these actions only (never `skip` or `fail`). */
export const countsTowardEscalation = (action: TimeoutAction): boolean => action === 'retry' || action === 'dlq' || action === 'graceful_terminate';
