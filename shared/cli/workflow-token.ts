import { UsageError } from './exit-codes.js';

export interface WorkflowTokenFlags {
  token?: string | undefined;
  job?: string | undefined;
  workflow?: string | undefined;
}

/**
 * The token of `vigil run --job`'s workflow: `--token`, else `$VIGIL_TOKEN`, which keeps it off the
 * command line (any local user reads that: `ps`, /proc/<pid>/cmdline). A runner's child has
 * VIGIL_TOKEN set to its own work's token beside that work's ids (child-environment.ts): it is taken
 * only for that same workflow, never a pool attempt's or another workflow's for this one.
 */
export function workflowToken(flags: WorkflowTokenFlags, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (flags.token !== undefined) return flags.token;
  const token = env['VIGIL_TOKEN'] || undefined;
  if (token === undefined) return undefined;
  const asked = `job '${flags.job ?? ''}' workflow '${flags.workflow ?? ''}'`;
  const pool = env['VIGIL_POOL'] || undefined;
  if (pool !== undefined || env['VIGIL_ATTEMPT']) {
    throw new UsageError(
      `VIGIL_TOKEN here is the token of pool '${pool ?? ''}' item '${env['VIGIL_ITEM'] ?? ''}' (this runs inside that item's vigil run), not of ${asked}: pass its token with --token T.`,
    );
  }
  const ownJob = env['VIGIL_JOB'] || undefined;
  const ownWorkflow = env['VIGIL_WORKFLOW'] || undefined;
  if ((ownJob !== undefined && ownJob !== flags.job) || (ownWorkflow !== undefined && ownWorkflow !== flags.workflow)) {
    throw new UsageError(`VIGIL_TOKEN here is the token of job '${ownJob ?? ''}' workflow '${ownWorkflow ?? ''}' (this runs inside its vigil run), not of ${asked}: pass its token with --token T.`);
  }
  return token;
}
