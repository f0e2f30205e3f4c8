import { TerminateRequest } from '../sdk/agent.js';
import { VigilApiError, VigilUnreachableError } from '../sdk/errors.js';

/**
 * Why the SDK's signal fired, as the runner logs it: Vigil's word (`said`), a refusal of the work's
 * calls, or no answer at the deadline (the SDK's deadline watch gave up on Vigil).
 */
export function whySignalled(reason: unknown, said: 'cancel' | 'terminate'): string {
  const heard = reason instanceof TerminateRequest && reason.cause !== undefined ? reason.cause : reason;
  if (heard instanceof VigilUnreachableError) return 'deadline passed and Vigil did not answer';
  // The workflow SDK turns a `cancel` answer into a job_finished refusal of the work.
  if (heard instanceof VigilApiError && heard.code !== 'job_finished') return `Vigil refused the work's calls (${heard.code})`;
  if (heard instanceof VigilApiError || heard instanceof TerminateRequest) return `Vigil said ${said}`;
  return `deadline passed and Vigil's answer could not be read (${heard instanceof Error ? heard.message : String(heard)})`;
}
