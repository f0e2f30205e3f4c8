/**
 * A small client for the agent-fleet routes of a running Vigil: answers as parsed JSON with their
 * status, so a test can assert both. Agent calls carry the attempt's token.
 */
export interface PoolAnswer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

export interface Attempt {
  poolId: string;
  itemId: string;
  attempt: number;
  token: string;
  agentId: string;
  deadlineAt: string | null;
  checkpointIntervalSeconds?: number;
  /** The cadence the pool needs its agents to heartbeat at. */
  heartbeatIntervalSeconds?: number;
  lastCheckpoint: unknown;
}

export class PoolClient {
  constructor(private readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<PoolAnswer<T>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
  }

  createPool(body: unknown) {
    return this.request('POST', '/pools', body);
  }

  createPoolYaml(yaml: string) {
    return this.request('POST', '/pools', yaml, { 'content-type': 'application/yaml' });
  }

  getPool(poolId: string) {
    return this.request<{ status: string; counts: Record<string, number> }>('GET', `/pools/${poolId}`);
  }

  getItem(poolId: string, itemId: string) {
    return this.request<ItemView>('GET', `/pools/${poolId}/items/${itemId}`);
  }

  async claim(poolId: string, agentId: string): Promise<Attempt | undefined> {
    const answer = await this.request<Omit<Attempt, 'poolId' | 'agentId'>>('POST', `/pools/${poolId}/claims`, { agentId });
    if (answer.status === 204) return undefined;
    if (answer.status !== 200) throw new Error(`claim answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return { ...answer.body, poolId, agentId };
  }

  /** An agent call on `…/items/{itemId}/{path}` with `{ agentId, attempt }` and the token. */
  agent<T = Record<string, unknown>>(attempt: Attempt, path: string, extra: Record<string, unknown> = {}) {
    return this.request<T>(
      'POST',
      `/pools/${attempt.poolId}/items/${attempt.itemId}/${path}`,
      { agentId: attempt.agentId, attempt: attempt.attempt, ...extra },
      { 'x-vigil-token': attempt.token },
    );
  }

  heartbeat(attempt: Attempt) {
    return this.agent<{ action: string; deadlineAt: string | null; terminateBy?: string }>(attempt, 'heartbeat');
  }

  dlq(poolId: string) {
    return this.request<{ items: Array<{ itemId: string; timeoutCount: number; history: ItemView['history'] }> }>('GET', `/pools/${poolId}/dlq`);
  }

  escalations(poolId: string) {
    return this.request<{ escalations: Array<{ escalationId: string; itemId: string; status: string; options: string[] }> }>(
      'GET',
      `/escalations?poolId=${encodeURIComponent(poolId)}`,
    );
  }
}

export interface ItemView {
  itemId: string;
  state: string;
  attempt: number;
  timeoutCount: number;
  reason?: string;
  input: unknown;
  lastCheckpoint: { state: unknown } | null;
  partialResult: unknown;
  history: Array<{
    attempt: number;
    agentId: string;
    startedAt?: string;
    endedAt?: string;
    outcome?: string;
    resolution?: string;
    timeout?: { type: string; commandIndex?: number; commandType?: string; limitSeconds: number; elapsedSeconds: number };
    lateResults?: Array<{ call: string; result?: unknown }>;
  }>;
}
