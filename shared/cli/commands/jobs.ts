import { sleepLong } from '../../ports/long-timeout.js';
import { gateJobAnswer, gateSubmittedJobAnswer, type GateJobAnswer, type GateSubmittedJobAnswer } from '../../contract/gate-responses.js';
import { cancelAnswer, jobAnswer, submittedJobAnswer, type JobAnswer } from '../../contract/manager-responses.js';
import { VigilApiError } from '../../sdk/errors.js';
import type { VigilHttp } from '../../sdk/vigil-http.js';
import { command } from '../command-line.js';
import { vigilHttp } from '../endpoint.js';
import { ExitCode, exitCodeOfStatus, UsageError } from '../exit-codes.js';
import { readInputFile } from '../input-file.js';
import { withClientChosenId } from '../client-chosen-id.js';
import { gateJobLines, jobLines } from '../job-display.js';
import { print } from '../output.js';
import { LiveView } from '../live-view.js';
import { readerGone } from '../closed-output.js';
import { entriesFrom } from '../all-pages.js';
import { secondsFlag } from '../seconds-flag.js';

const jobPath = (jobId: string) => `/jobs/${encodeURIComponent(jobId)}`;

/** The job with every workflow: a large job's answer is paged (`nextCursor`), and the pages are joined. */
async function fetchJob(http: VigilHttp, gate: boolean | undefined, jobId: string): Promise<JobAnswer | GateJobAnswer> {
  const { body } = await http.call('GET', jobPath(jobId));
  if (gate) return gateJobAnswer.parse(body);
  const { nextCursor, ...job } = jobAnswer.parse(body);
  if (nextCursor === undefined) return job;
  return jobAnswer.parse({ ...job, workflows: await entriesFrom(http, jobPath(jobId), 'workflows', body) });
}

/** The time left is counted on Vigil's clock, as its answers tell it, not this machine's. */
const linesOf = (job: JobAnswer | GateJobAnswer, gate: boolean | undefined, http: VigilHttp) =>
  gate ? gateJobLines(job as GateJobAnswer, http.vigilClock.vigilNowMs()) : jobLines(job as JobAnswer, http.vigilClock.vigilNowMs());

/** A job file written for the gate: one with `datacenters` (contract, "Gate API"). */
const isGateJob = (data: unknown): boolean => data !== null && typeof data === 'object' && !Array.isArray(data) && 'datacenters' in data;

export const submit = command(
  {
    usage: 'vigil submit FILE [--gate]',
    summary:
      'Submit a job from a JSON or YAML file. A job with "datacenters" goes to the gate, with or without --gate. ' +
      "The job's id and tokens are printed as the answer gives them, the gate's or a region's, whichever --endpoint answered.",
    options: {},
    positionals: ['FILE'],
  },
  async ({ values, positionals }) => {
    const file = withClientChosenId(readInputFile(positionals[0] ?? ''), 'jobId');
    const http = vigilHttp({ ...values, gate: values.gate === true || isGateJob(file.data) });
    const { status, body } = await http.call('POST', '/jobs', { body: file.data });
    const verb = status === 201 ? 'submitted' : 'already submitted';
    // A job was created whichever flag was given: the answer decides how it is shown, so no job is left without its tokens.
    const gateJob = gateSubmittedJobAnswer.safeParse(body);
    if (gateJob.success) {
      printGateSubmit(values.json, verb, gateJob.data);
      return ExitCode.ok;
    }
    const regionJob = submittedJobAnswer.safeParse(body);
    if (!regionJob.success) {
      throw new UsageError(
        `Vigil answered ${status}, but neither as a region nor as the gate answers a submit: check that --endpoint is a Vigil. ` +
          `The job may have been created; the answer was:\n${JSON.stringify(body, null, 2)}`,
      );
    }
    // A large job's answer holds the first page of tokens; the rest are fetched, so every worker's is shown.
    const { nextCursor, ...first } = regionJob.data;
    const job = nextCursor === undefined ? first : submittedJobAnswer.parse({ ...first, workflows: await entriesFrom(http, `${jobPath(first.jobId)}/tokens`, 'workflows', body) });
    print(values.json, job, () => [
      `${verb} ${job.jobId} ${job.status} deadline ${job.deadlineAt}`,
      ...job.workflows.map((w) => `  ${w.workflowId} ${w.workerId} token ${w.token}`),
    ]);
    return ExitCode.ok;
  });

function printGateSubmit(json: boolean | undefined, verb: string, job: GateSubmittedJobAnswer): void {
  print(json, job, () => [
    `${verb} ${job.jobId} (gate_coordinated)`,
    ...Object.entries(job.datacenters).flatMap(([region, dc]) => [
      ...dc.workflows.map((w) => `  ${region} ${w.workflowId} ${w.workerId} token ${w.token}`),
      // The rest of a large region's tokens are that region's to give (its workers talk to it).
      ...(typeof dc['nextCursor'] === 'string' ? [`  ${region}: more tokens at that region's GET ${jobPath(job.jobId)}/tokens?cursor=${encodeURIComponent(dc['nextCursor'])}`] : []),
    ]),
  ]);
}

export const status = command(
  {
    usage: 'vigil status JOB [--gate]',
    summary: 'Show a job. Exit 0 while RUNNING or COMPLETED, 1 FAILED, 3 TIMED_OUT or CANCELLED, 2 unknown job.',
    options: {},
    positionals: ['JOB'],
  },
  async ({ values, positionals }) => {
    const http = vigilHttp(values);
    const job = await fetchJob(http, values.gate, positionals[0] ?? '');
    print(values.json, job, () => linesOf(job, values.gate, http));
    return exitCodeOfStatus(job.status);
  });

export const cancel = command(
  {
    usage: 'vigil cancel JOB [--reason TEXT] [--gate]',
    summary: 'Cancel a running job (in every region with --gate).',
    optionHelp: ['--reason TEXT    recorded with the cancellation'],
    options: { reason: { type: 'string' } },
    positionals: ['JOB'],
  },
  async ({ values, positionals }) => {
    const jobId = positionals[0] ?? '';
    const http = vigilHttp(values);
    const answer = await http
      .call('POST', `${jobPath(jobId)}/cancel`, { body: values.reason ? { reason: values.reason } : {} })
      .then(({ body }) => cancelAnswer.parse(body))
      .catch((error: unknown) => cancelledByLostTry(http, jobId, error));
    print(values.json, answer, () => [`${answer.jobId} ${answer.status}`]);
    return ExitCode.ok;
  });

export const watch = command(
  {
    usage: 'vigil watch JOB [--interval S] [--gate]',
    summary: 'Follow a job live until it ends: status, time left, a progress bar per workflow (per region with --gate). Exit code as status.',
    optionHelp: ['--interval S     seconds between polls (default 1)'],
    options: { interval: { type: 'string' } },
    positionals: ['JOB'],
  },
  async ({ values, positionals }) => {
    const intervalMs = secondsFlag('interval', values.interval, 1, { above: 0 }) * 1000;
    const http = vigilHttp(values);
    const view = new LiveView(process.stdout, values.json === true);
    for (;;) {
      const job = await fetchJob(http, values.gate, positionals[0] ?? '');
      // A reader that went away (`| head -1`) has seen enough: the exit code is the job's as last seen.
      if (readerGone()) return exitCodeOfStatus(job.status);
      view.show(job, linesOf(job, values.gate, http));
      if (job.status !== 'RUNNING') return exitCodeOfStatus(job.status);
      // `--interval` may be longer than setTimeout waits.
      await sleepLong(intervalMs);
    }
  });

/**
 * A cancel whose first try was applied but whose answer was lost (API Gateway's 504) is refused on
 * its repeat as `job_finished`: the job CANCELLED is then this command's own doing, not an error.
 */
async function cancelledByLostTry(http: VigilHttp, jobId: string, error: unknown): Promise<{ jobId: string; status: string }> {
  if (!(error instanceof VigilApiError && error.code === 'job_finished' && error.afterUnansweredTry)) throw error;
  const { body } = await http.call('GET', jobPath(jobId));
  const status = (body as { status?: unknown } | undefined)?.status;
  if (status !== 'CANCELLED') throw error;
  return { jobId, status };
}
