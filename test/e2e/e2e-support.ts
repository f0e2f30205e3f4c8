import { setTimeout as sleep } from 'node:timers/promises';
import { pollUntil } from '../support/poll.js';
import { ok, type JobView, type VigilClient } from '../support/vigil-client.js';
import type { VigilProcess } from '../support/vigil-process.js';

/**
 * Polls GET /jobs/{jobId} until `until` holds. The failure message shows the last answer and the
 * tail of Vigil's output, so a red test says what the server was doing.
 */
export async function waitForJob(
  vigil: VigilProcess,
  client: VigilClient,
  jobId: string,
  until: (job: JobView) => boolean,
  timeoutMs: number,
): Promise<JobView> {
  let last: JobView | undefined;
  return pollUntil(
    async () => {
      last = ok(await client.getJob(jobId));
      return until(last) ? last : undefined;
    },
    {
      what: () => `job ${jobId}; last answer ${JSON.stringify(last)}\nVigil output:\n${vigil.logTail(15)}`,
      timeoutMs,
      intervalMs: 50,
    },
  );
}

/** How late a timeout may be declared on a noisy 2-core machine and still count as on time. */
export const ON_TIME_MS = 1_500;

export const isFinished = (job: JobView) => job.status !== 'RUNNING';

/** Waits for a moment on the wall clock: used to show that nothing happens before or after it. */
export async function sleepUntil(epochMs: number): Promise<void> {
  const waitMs = epochMs - Date.now();
  if (waitMs > 0) await sleep(waitMs);
}

export const ms = (iso: string | undefined): number => {
  if (iso === undefined) throw new Error('expected a timestamp, got none');
  return Date.parse(iso);
};

/** The `JobTimedOut` events the local cloud published for one job. */
export async function timedOutEvents(client: VigilClient, jobId: string) {
  const { events } = ok(await client.events());
  return events.filter((event) => event.detailType === 'JobTimedOut' && event.detail['jobId'] === jobId);
}
