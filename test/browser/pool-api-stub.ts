import type { Forwarder, RawReply } from '../../shared/console/console-routes.js';

/**
 * The pool, DLQ, metrics and escalation routes of the "Agent fleets — v2" contract, answered from
 * memory: what the console's pool and escalation pages are written against, while the real routes
 * live on another branch. Only the shapes and the status codes the pages rely on.
 */
export function poolApiStub(): { forward: Forwarder; calls: string[] } {
  const calls: string[] = [];
  const history = (attempt: number, outcome: string) => ({
    attempt,
    agentId: `agent-${attempt}`,
    startedAt: '2026-03-01T12:00:00.000Z',
    endedAt: '2026-03-01T12:05:00.000Z',
    outcome,
    ...(outcome === 'timed_out' ? { timeout: { type: 'command', commandIndex: 0, commandType: 'claude', limitSeconds: 300, elapsedSeconds: 300 }, resolution: 'graceful' } : {}),
  });
  const dlq = new Map([['item-7', { itemId: 'item-7', timeoutCount: 2, history: [history(1, 'timed_out'), history(2, 'timed_out')] }]]);
  const escalations = new Map([
    ['esc-1', { escalationId: 'esc-1', poolId: 'pool-a', itemId: 'item-3', question: 'item-3 timed out 3 times. Split it, clarify it, give it more time, or skip it?', options: ['split', 'clarify', 'increase_timeout', 'skip'], askedAt: '2026-03-01T12:10:00.000Z', status: 'pending' }],
  ]);
  const json = (statusCode: number, body: unknown): RawReply => ({ statusCode, contentType: 'application/json', body: JSON.stringify(body) });
  const forward: Forwarder = async ({ method, url, body }) => {
    calls.push(`${method} ${url.pathname}`);
    const path = url.pathname;
    if (method === 'GET' && path === '/pools/pool-a') {
      return json(200, { poolId: 'pool-a', status: 'RUNNING', counts: { available: 12, running: 4, succeeded: 30, failed: 1, skipped: 2, dlq: dlq.size, escalated: 1 }, config: {} });
    }
    if (method === 'GET' && path === '/pools/pool-a/metrics') {
      return json(200, {
        agentsStarted: 40,
        agentsCompleted: 33,
        timeoutsOccurred: 6,
        timeoutsByType: { agent: 2, command: { claude: 3, shell: 1 } },
        timeoutRatePercent: 15,
        averageExecutionSeconds: 212.4,
        recentTimeouts: [0, 1, 1, 4, 9, 9].map((minute) => ({ itemId: 'item-x', at: new Date(Date.parse('2026-03-01T12:00:00Z') + minute * 60_000).toISOString() })),
      });
    }
    if (method === 'GET' && path === '/pools/pool-a/dlq') return json(200, { items: [...dlq.values()] });
    const retry = /^\/pools\/pool-a\/dlq\/([^/]+)\/retry$/.exec(path);
    if (method === 'POST' && retry) {
      return dlq.delete(retry[1] ?? '') ? json(200, { itemId: retry[1], state: 'available' }) : json(409, { error: { code: 'not_in_dlq', message: `Item ${retry[1]} is not in the DLQ.` } });
    }
    if (method === 'GET' && path === '/pools/pool-a/items/item-7') {
      return json(200, { itemId: 'item-7', state: dlq.has('item-7') ? 'dlq' : 'available', attempt: 2, timeoutCount: 2, history: [history(1, 'timed_out'), history(2, 'timed_out')] });
    }
    if (method === 'GET' && path === '/escalations') return json(200, { escalations: [...escalations.values()] });
    const answer = /^\/escalations\/([^/]+)\/answer$/.exec(path);
    if (method === 'POST' && answer) {
      const escalation = escalations.get(answer[1] ?? '');
      if (!escalation) return json(404, { error: { code: 'escalation_not_found', message: 'No such escalation.' } });
      if (escalation.status !== 'pending') return json(409, { error: { code: 'already_answered', message: `Escalation ${escalation.escalationId} was already answered; each question takes one answer.` } });
      const parsed = JSON.parse(body) as { option?: string };
      if (!escalation.options.includes(parsed.option ?? '')) return json(400, { error: { code: 'invalid_request', message: 'option must be one of split, clarify, increase_timeout, skip' } });
      escalations.set(escalation.escalationId, { ...escalation, status: 'answered' });
      return json(200, { escalationId: escalation.escalationId, status: 'answered' });
    }
    return json(404, { error: { code: 'route_not_found', message: `stub has no ${method} ${path}` } });
  };
  return { forward, calls };
}
