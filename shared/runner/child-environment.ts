/** What a runner tells its child about the work it runs for, in either mode (README, "The agent runner"). */
const WORK_VARIABLES = ['VIGIL_POOL', 'VIGIL_ITEM', 'VIGIL_ATTEMPT', 'VIGIL_ITEM_INPUT', 'VIGIL_JOB', 'VIGIL_WORKFLOW', 'VIGIL_WORKER', 'VIGIL_TOKEN'] as const;

/**
 * The runner's environment with `own` on top, and none of WORK_VARIABLES but the child's own: a
 * runner started inside another's child would otherwise pass on the outer work's variables (a job's
 * VIGIL_JOB beside a pool item's VIGIL_TOKEN), and the token would read as that work's.
 */
export function childEnvironment(own: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of WORK_VARIABLES) delete env[name];
  return { ...env, ...own };
}
