/**
 * What the workers really did, as the invariants need it: when each job last made progress in a
 * region (a report the manager accepted), and how many extension seconds each worker was granted.
 */
export class ProgressLog {
  private readonly lastProgress = new Map<string, number>();
  readonly grantedSeconds = new Map<string, number>();

  progressed(jobId: string, region: string, at: number): void {
    const key = `${jobId}/${region}`;
    this.lastProgress.set(key, Math.max(at, this.lastProgress.get(key) ?? 0));
  }

  lastProgressAt(jobId: string, region: string): number | undefined {
    return this.lastProgress.get(`${jobId}/${region}`);
  }

  granted(workerId: string, seconds: number): void {
    this.grantedSeconds.set(workerId, (this.grantedSeconds.get(workerId) ?? 0) + seconds);
  }
}
