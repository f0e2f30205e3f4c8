import { vi } from 'vitest';

/** Everything the SDK's calls time by, faked from 0: their timers (tries, waits, beats) and clocks (budgets, deadlines). */
export const useFakeSdkTimers = (): void =>
  void vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] });

export interface Call {
  path: string;
  body: Record<string, unknown>;
  at: number;
  /** Settled: answered, or given up by its caller (its signal aborted). */
  answered: boolean;
  /** When it settled. */
  endedAt?: number;
  answer?: () => void;
}

/**
 * `fetch` stubbed by a Vigil that answers `reply(call)` at once (or `latencyMs` after the call, a slow
 * Vigil) until `hold()`, then holds every call until `answerAll()` answers them and it answers as
 * before again. A call's abort fails it, as fetch does.
 * `sentSince(answerAll())`: when the calls that followed were sent, in ms after the answers.
 */
export function holdingVigil(reply: (call: Call) => unknown, { latencyMs = 0 }: { latencyMs?: number } = {}) {
  const calls: Call[] = [];
  let holding = false;
  const respond = (call: Call) => new Response(JSON.stringify(reply(call)), { status: 200, headers: { 'content-type': 'application/json' } });
  vi.stubGlobal('fetch', async (url: string | URL, init: RequestInit = {}) => {
    const path = new URL(String(url)).pathname;
    const call: Call = { path, body: JSON.parse(String(init.body ?? '{}')) as Record<string, unknown>, at: Date.now(), answered: false };
    calls.push(call);
    const answer =
      holding || latencyMs > 0
        ? new Promise<Response>((resolve, reject) => {
            call.answer = () => resolve(respond(call));
            if (!holding) setTimeout(call.answer, latencyMs);
            init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
          })
        : Promise.resolve(respond(call));
    return answer.finally(() => {
      call.answered = true;
      call.endedAt = Date.now();
    });
  });
  return {
    endpoint: 'https://vigil.example',
    calls,
    hold: () => void (holding = true),
    unanswered: () => calls.filter((call) => !call.answered),
    answerAll: (): { index: number; at: number } => {
      holding = false;
      for (const call of calls) call.answer?.();
      return { index: calls.length, at: Date.now() };
    },
    sentSince: (since: { index: number; at: number }, which: (call: Call) => boolean) =>
      calls.slice(since.index).filter(which).map((call) => call.at - since.at),
  };
}
