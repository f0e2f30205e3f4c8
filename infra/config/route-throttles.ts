/** API Gateway's steady rate (requests per second) and burst (bucket size) for one route. */
export interface RouteThrottle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

/**
 * The routes without IAM authorization are throttled per route, so a leaked workflow token or a
 * worker stuck in a loop cannot take the region's whole account quota (10,000 requests per second
 * shared by every API). Sized for one 10,000-workflow job reporting every 10 s (1,000/s) and all of
 * its workflows completing at once (drained within seconds); above the limits a worker gets 429 and
 * retries with backoff.
 */
export const WorkerRouteThrottles = {
  progress: { rateLimit: 1_000, burstLimit: 2_000 },
  complete: { rateLimit: 500, burstLimit: 1_000 },
  // AD-26 allows five grants per worker budget: a worker never needs many.
  extensions: { rateLimit: 100, burstLimit: 200 },
  health: { rateLimit: 10, burstLimit: 20 },
  // The `$default` route: requests no route takes (a typo, a scanner) are answered 404 by a function.
  unrouted: { rateLimit: 10, burstLimit: 20 },
  // Agent fleets: heartbeats, commands, checkpoints and results of every running agent of the region.
  poolAgent: { rateLimit: 1_000, burstLimit: 2_000 },
} as const satisfies Record<string, RouteThrottle>;

/**
 * Every other route, the signed client routes among them (submissions, claims, reads, cancels): a
 * runaway client cannot take the account's quota, nor, through handlers that each run up to 29 s,
 * the region's Lambda concurrency that the timers and sweeps need. Sized far above a person's or a
 * scheduler's calls and a large fleet's claims (200 a second is 12,000 items a minute).
 */
export const ClientRouteThrottle = { rateLimit: 200, burstLimit: 400 } as const satisfies RouteThrottle;
