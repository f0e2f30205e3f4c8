import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';

/**
 * The real store, where a competitor (a cancel, a wake-up, a completion) runs to its end between a
 * progress report's read and its workflow write: the next workflow write, advance or heartbeat, first
 * awaits it. `afterCompetitor` runs once it is done, before the write (a snapshot of the table).
 */
export class EndBeforeReportWrite extends DynamoJobStore {
  private competitor: { run: () => Promise<unknown>; then: () => Promise<unknown> } | undefined;

  beforeNextWorkflowWrite(run: () => Promise<unknown>, then: () => Promise<unknown> = async () => undefined): void {
    this.competitor = { run, then };
  }

  override async recordWorkflowAdvance(...args: Parameters<DynamoJobStore['recordWorkflowAdvance']>) {
    await this.runCompetitor();
    return super.recordWorkflowAdvance(...args);
  }

  override async touchWorkflowHeartbeat(...args: Parameters<DynamoJobStore['touchWorkflowHeartbeat']>) {
    await this.runCompetitor();
    return super.touchWorkflowHeartbeat(...args);
  }

  private async runCompetitor(): Promise<void> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (!competitor) return;
    await competitor.run();
    await competitor.then();
  }
}
