/** AWS requests the simulated world made, by kind: what the cost model prices. */
export class AwsCalls {
  readonly lambdaInvocations: Record<string, number> = {};
  /** HTTP requests through API Gateway, by route kind (worker routes could move to function URLs). */
  readonly httpRequests: Record<'worker' | 'client', number> = { worker: 0, client: 0 };
  eventBridgeEvents = 0;
  forwardedEvents = 0;
  sqsRequests = 0;
  schedulerInvocations = 0;
  /** Lines the handlers wrote to their logs (Powertools log lines and metric lines). */
  logLines = 0;

  lambda(name: string): void {
    this.lambdaInvocations[name] = (this.lambdaInvocations[name] ?? 0) + 1;
  }

  get totalInvocations(): number {
    return Object.values(this.lambdaInvocations).reduce((a, b) => a + b, 0);
  }
}
