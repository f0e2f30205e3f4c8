/** The console talks to Vigil only through its own server: `/console/api/<gate|region>/<route>`. */
export interface ApiAnswer<Body = unknown> {
  ok: boolean;
  status: number;
  body: Body;
}

export interface Endpoints {
  gate: boolean;
  regions: string[];
  /** The local cloud's fault injection is reachable (npm start only). */
  faults: boolean;
}

export async function api<Body = unknown>(target: string, path: string, init?: { method?: string; body?: unknown }): Promise<ApiAnswer<Body>> {
  const response = await fetch(`/console/api/${encodeURIComponent(target)}${path}`, {
    method: init?.method ?? 'GET',
    ...(init?.body !== undefined ? { body: JSON.stringify(init.body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { ok: response.ok, status: response.status, body: body as Body };
}

/** The contract's error shape, as one line for a person. */
export function errorText(answer: ApiAnswer): string {
  const error = (answer.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return error ? `${answer.status} ${error.code ?? ''}: ${error.message ?? ''}` : `HTTP ${answer.status}`;
}

export async function endpoints(): Promise<Endpoints> {
  const response = await fetch('/console/endpoints');
  return (await response.json()) as Endpoints;
}
