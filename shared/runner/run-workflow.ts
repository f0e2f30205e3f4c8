import { VigilApiError } from '../sdk/errors.js';
import type { ExtensionReason, WorkflowHandle } from '../sdk/workflow.js';
import type { ChildFiles } from './child-files.js';
import { childEnvironment } from './child-environment.js';
import { spawnGroup } from './process-group.js';
import { stopGroup } from './stop-group.js';
import { sendUntil, untilAnswered } from './until-answered.js';
import { ASK_AT_DEADLINE_MS, superviseHearingVigil } from './ask-at-deadline.js';
import { whySignalled } from './why-signalled.js';

export interface WorkflowRunContext {
  endpoint: string;
  jobId: string;
  workflowId: string;
  workerId: string;
  token: string;
  /** SIGTERM → SIGKILL after this long when the job ends under the child. */
  graceSeconds: number;
  /** How long past the deadline the runner waits for Vigil's own verdict before asking for it (and stopping the child itself when none comes). */
  deadlineSlackSeconds: number;
  log: (line: string) => void;
  /** Aborted when the runner itself is told to stop (Ctrl-C). */
  stopping?: AbortSignal;
}

export type WorkflowRunOutcome = { kind: 'completed' | 'failed' } | { kind: 'stopped'; resolution: 'graceful' | 'force' };

/** Vigil's refusals of an outcome because the job or workflow ended first (timed out, cancelled). */
const ENDED_FIRST = new Set(['job_finished', 'workflow_finished']);

/** Runs a job's workflow as a child process group: its progress forwarded, stopped when the job ends. `files`: made before the first report (the caller removes them). */
export async function runWorkflow(handle: WorkflowHandle, argv: readonly string[], files: ChildFiles, context: WorkflowRunContext): Promise<WorkflowRunOutcome> {
  const env = childEnvironment({
    ...files.env(),
    VIGIL_ENDPOINT: context.endpoint,
    VIGIL_JOB: context.jobId,
    VIGIL_WORKFLOW: context.workflowId,
    VIGIL_WORKER: context.workerId,
    VIGIL_TOKEN: context.token,
  });
  const forwardProgress = async () => {
    const written = files.changed(files.progress);
    if (typeof written === 'number') await handle.progress(written);
    else if (written !== null && typeof written === 'object') await handle.progress(written as { progress?: number; step?: string | number });
  };
  // The child always gets an answer: Vigil's, or why none came (it may write the request again).
  const forwardExtensionRequest = async () => {
    const written = files.changed(files.extensionRequest);
    if (written === undefined) return;
    const asked = extensionAsked(written);
    if (!asked) {
      files.write(files.extensionAnswer, { error: { code: 'invalid_request', message: 'Write your progress (0–1), or {"currentProgress": 0.5, "reason": "long_workflow"}.' } });
      return;
    }
    try {
      const answer = await handle.requestExtension(asked.reason, asked.currentProgress);
      files.write(files.extensionAnswer, answer);
      context.log(`job ${context.jobId}: extension ${answer.granted ? `granted (${answer.extensionSeconds} s)` : `denied: ${answer.denialReason ?? ''}`}`);
    } catch (error) {
      const code = error instanceof VigilApiError ? error.code : 'unreachable';
      files.write(files.extensionAnswer, { error: { code, message: error instanceof Error ? error.message : String(error) } });
    }
  };
  // The deadline comes when Vigil's clock reads it (its answers tell where it stands), read anew every tick.
  const stopAtMs = () => {
    const deadlineMs = handle.vigilClock.localMsOf(handle.deadlineAtMs);
    return deadlineMs === undefined ? undefined : deadlineMs + context.deadlineSlackSeconds * 1000;
  };
  try {
    // The job ended before the child started (the first report said cancel): nothing is started.
    if (handle.signal.aborted) {
      context.log(`job ${context.jobId}: the job has ended; the command is not started`);
      return { kind: 'stopped', resolution: 'graceful' };
    }
    // Told to stop while Vigil answered the first report: the stop's SIGTERM went out before this child
    // could get it. Stopped unfinished, the workflow failed, as when the stop ends a running child.
    if (context.stopping?.aborted) {
      context.log(`job ${context.jobId}: runner stopping; the command is not started`);
      return await complete(handle, 'failed', context);
    }
    const group = spawnGroup(argv[0] ?? 'sh', argv.slice(1), env, context.graceSeconds * 1000);
    // Vigil decides while it answers: an extension granted through another of this worker's workflows
    // moves this job's deadline too.
    const end = await superviseHearingVigil(group, {
      signal: handle.signal,
      ...(context.stopping ? { stopping: context.stopping } : {}),
      deadlineMs: stopAtMs,
      onTick: async () => {
        await forwardProgress();
        await forwardExtensionRequest();
      },
      ask: () => handle.progress({}),
      askUntilMs: () => Date.now() + ASK_AT_DEADLINE_MS,
    });
    if (end.kind === 'stop') {
      const why = { vigil: whySignalled(handle.signal.reason, 'cancel'), deadline: 'deadline passed and Vigil did not answer', operator: 'runner stopping' }[end.cause];
      context.log(`job ${context.jobId}: ${why}; SIGTERM to group ${group.pid}`);
      // The runner's own stop sent the group SIGTERM already.
      const resolution = await stopGroup(group, end.atMs + context.graceSeconds * 1000, { alreadyTerminated: end.cause === 'operator' });
      context.log(`job ${context.jobId}: child group ${group.pid} gone (${resolution})`);
      // An operator's stop ends the work unfinished: the workflow failed, as when its child exits on that SIGTERM.
      if (end.cause === 'operator') return await complete(handle, 'failed', context);
      return { kind: 'stopped', resolution };
    }
    await forwardProgress().catch(() => undefined);
    // The runner's SIGTERM ended the child, however it exited (a trap's `exit 0` included): unfinished.
    if (context.stopping?.aborted) return await complete(handle, 'failed', context);
    return await complete(handle, end.code === 0 ? 'completed' : 'failed', context);
  } finally {
    handle.stop();
  }
}

/** Records the child's outcome; a job that ended as the child finished makes it a stopped run. */
async function complete(handle: WorkflowHandle, outcome: 'completed' | 'failed', context: WorkflowRunContext): Promise<WorkflowRunOutcome> {
  try {
    // Vigil takes a repeated outcome as the same one: it is sent again through an outage until the deadline.
    await untilAnswered((signal) => handle.complete(outcome, { signal }), sendUntil(handle.vigilClock.localMsOf(handle.deadlineAtMs)), context.log);
    return { kind: outcome };
  } catch (error) {
    if (!(error instanceof VigilApiError && ENDED_FIRST.has(error.code))) throw error;
    context.log(`job ${context.jobId}: the child ${outcome}, but the job had ended first (${error.code})`);
    return { kind: 'stopped', resolution: 'graceful' };
  }
}

const REASONS: readonly ExtensionReason[] = ['long_workflow', 'gc_pause', 'resource_contention'];

/** What the child wrote to ask for an extension: its progress, or `{"currentProgress", "reason"}`. */
function extensionAsked(written: unknown): { currentProgress: number; reason: ExtensionReason } | undefined {
  if (typeof written === 'number') return { currentProgress: written, reason: 'long_workflow' };
  if (written === null || typeof written !== 'object') return undefined;
  const { currentProgress, reason } = written as { currentProgress?: unknown; reason?: unknown };
  if (typeof currentProgress !== 'number') return undefined;
  return { currentProgress, reason: REASONS.find((known) => known === reason) ?? 'long_workflow' };
}
