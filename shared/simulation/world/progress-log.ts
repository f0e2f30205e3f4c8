/**
 * What the workers really did, as the invariants need it: when each workflow last made progress (a
 * report the manager accepted) and which ones finished, and when.
 */
export class ProgressLog {
  private readonly lastProgress = new Map<string, number>();
  private readonly jobStarted = new Map<string, number>();
  /** When each finished workflow's outcome was sent: no later than the manager recorded it. */
  private readonly finished = new Map<string, number>();
  private readonly died = new Map<string, number>();
  private readonly lastHeard = new Map<string, number>();
  private readonly tokensHandedOut = new Set<string>();

  /** The job appeared in a region's store: its workflows' "no progress since" starts here. */
  jobSeen(jobId: string, region: string, at: number): void {
    const key = `${jobId}/${region}`;
    if (!this.jobStarted.has(key)) this.jobStarted.set(key, at);
  }

  /**
   * The client got the job's tokens for this region, so its workers start. Through the gate this also
   * says the gate heard the region accept: it answers with tokens only once it recorded every acceptance.
   */
  tokensReceived(jobId: string, region: string): void {
    this.tokensHandedOut.add(`${jobId}/${region}`);
  }

  hasTokens(jobId: string, region: string): boolean {
    return this.tokensHandedOut.has(`${jobId}/${region}`);
  }

  progressed(workerId: string, at: number): void {
    this.lastProgress.set(workerId, Math.max(at, this.lastProgress.get(workerId) ?? 0));
  }

  /** A call of the worker was handled (its first try, a retry or a redelivery). */
  workerHeard(workerId: string, at: number): void {
    this.lastHeard.set(workerId, Math.max(at, this.lastHeard.get(workerId) ?? 0));
  }

  workerDied(workerId: string, at: number): void {
    this.died.set(workerId, at);
  }

  /** For a worker that died: the last moment anything was heard from it (a delivery may land after its death). */
  silentSince(workerId: string): number | undefined {
    const died = this.died.get(workerId);
    return died === undefined ? undefined : Math.max(died, this.lastHeard.get(workerId) ?? died);
  }

  workflowFinished(workerId: string, sentAt: number): void {
    if (!this.finished.has(workerId)) this.finished.set(workerId, sentAt);
  }

  /**
   * Seed 000 Part 3: stuck when the job has not moved for the threshold while a workflow of it is
   * still active. The job moves when any workflow of it advances or reports its outcome (seed 001
   * §10.6.3: every workflow state transition is progress); until then, since it started.
   */
  stuck(jobId: string, region: string, workerIds: readonly string[], thresholdMs: number, now: number): boolean {
    const started = this.jobStarted.get(`${jobId}/${region}`);
    if (started === undefined || workerIds.every((id) => this.finished.has(id))) return false;
    return now - this.lastMovedAt(workerIds, started) >= thresholdMs;
  }

  /** Seconds since the job last moved, and since each still-active workflow last advanced, for a violation's message. */
  describe(jobId: string, region: string, workerIds: readonly string[], now: number): string {
    const started = this.jobStarted.get(`${jobId}/${region}`) ?? now;
    const active = workerIds
      .filter((id) => !this.finished.has(id))
      .map((id) => `${id} ${Math.round((now - (this.lastProgress.get(id) ?? started)) / 1000)} s`);
    return [`the job ${Math.round((now - this.lastMovedAt(workerIds, started)) / 1000)} s`, ...active].join(', ');
  }

  private lastMovedAt(workerIds: readonly string[], started: number): number {
    return Math.max(started, ...workerIds.map((id) => Math.max(this.lastProgress.get(id) ?? -Infinity, this.finished.get(id) ?? -Infinity)));
  }
}
