import { afterAll, beforeAll } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { ok, type JobView, type VigilClient } from '../support/vigil-client.js';
import { VigilProcess, type VigilProcessOptions } from '../support/vigil-process.js';

/**
 * A real `npm start` for the calling file: started before its tests, stopped after them. The
 * returned object stands for the started process (every property read goes to it, methods bound),
 * so use it inside tests and hooks, not at collection time.
 */
export function useVigilProcess(options: VigilProcessOptions): VigilProcess {
  let vigil: VigilProcess | undefined;
  beforeAll(async () => {
    vigil = await VigilProcess.start(options);
  });
  afterAll(async () => {
    await vigil?.stop();
  });
  const started = (): VigilProcess => {
    if (!vigil) throw new Error('Vigil is not started: use it inside a test or a hook');
    return vigil;
  };
  return new Proxy({} as VigilProcess, {
    get(_, key) {
      const target = started();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

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

/**
 * How late a real-time test lets a timeout be: a loose bound that a busy 2-core machine meets (the
 * exact instants are asserted on the virtual clock; lateness is measured by `npm run bench`).
 */
export const LOOSE_LATENESS_MS = 10_000;

export const isFinished = (job: JobView) => job.status !== 'RUNNING';

export const ms = (iso: string | undefined): number => {
  if (iso === undefined) throw new Error('expected a timestamp, got none');
  return Date.parse(iso);
};

/** The `JobTimedOut` events the local cloud published for one job. */
export async function timedOutEvents(client: VigilClient, jobId: string) {
  const { events } = ok(await client.events());
  return events.filter((event) => event.detailType === 'JobTimedOut' && event.detail['jobId'] === jobId);
}

/**
 * The job's `JobTimedOut` events once there is one: the event is published after the write that
 * stored TIMED_OUT (from the item's outbox), so a client can see the status a moment before it.
 */
export async function publishedTimedOutEvents(client: VigilClient, jobId: string, timeoutMs = LOOSE_LATENESS_MS) {
  return pollUntil(
    async () => {
      const events = await timedOutEvents(client, jobId);
      return events.length > 0 ? events : undefined;
    },
    { what: () => `a JobTimedOut event for ${jobId}`, timeoutMs, intervalMs: 50 },
  );
}

/**
 * On `--virtual-clock`: advances time by `stepMs` at a time until `probe` answers a value (checked
 * first without moving time), at most `maxMs` of virtual time; the failure names what was awaited.
 */
export async function advanceUntil<T>(
  clock: VigilClient,
  probe: () => Promise<T | undefined>,
  { what, stepMs = 100, maxMs = 10_000 }: { what: string; stepMs?: number; maxMs?: number },
): Promise<T> {
  const start = await clock.advanceClock(0);
  for (let now = start; ; now = await clock.advanceClock(stepMs)) {
    const value = await probe();
    if (value !== undefined) return value;
    if (now - start >= maxMs) throw new Error(`${what}: not within ${maxMs} ms of virtual time`);
  }
}
