import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';

/** The two calls of a progress report that run side by side (report-progress.ts). */
export type ReportStep = 'workflow write' | 'health re-read';

interface Turn {
  first: ReportStep;
  started: Set<ReportStep>;
  firstLanded: Promise<void>;
  land: () => void;
}

/**
 * The real store, where the next progress report's workflow write and the re-read of its worker's
 * health from the workflows (`latestHeardFromWorkflows`) land in a chosen order. A report starts
 * both in one synchronous turn, so after one macrotask each knows whether the other is coming: a
 * report that makes only one of them is not held up.
 */
export class ReportOrderStore extends DynamoJobStore {
  private turn: Turn | undefined;
  /** The ordered steps of the last report given an order, as they landed. */
  landed: ReportStep[] = [];

  nextReportIn(first: ReportStep): void {
    let land = () => {};
    const firstLanded = new Promise<void>((resolve) => (land = resolve));
    this.turn = { first, started: new Set(), firstLanded, land };
    this.landed = [];
  }

  override recordWorkflowAdvance(...args: Parameters<DynamoJobStore['recordWorkflowAdvance']>) {
    return this.inTurn('workflow write', () => super.recordWorkflowAdvance(...args));
  }

  override touchWorkflowHeartbeat(...args: Parameters<DynamoJobStore['touchWorkflowHeartbeat']>) {
    return this.inTurn('workflow write', () => super.touchWorkflowHeartbeat(...args));
  }

  override latestHeardFromWorkflows(...args: Parameters<DynamoJobStore['latestHeardFromWorkflows']>) {
    return this.inTurn('health re-read', () => super.latestHeardFromWorkflows(...args));
  }

  private async inTurn<T>(step: ReportStep, run: () => Promise<T>): Promise<T> {
    const turn = this.turn;
    if (!turn) return run();
    turn.started.add(step);
    await new Promise((resolve) => setImmediate(resolve));
    if (this.turn === turn) this.turn = undefined;
    if (step !== turn.first && turn.started.has(turn.first)) await turn.firstLanded;
    const result = await run();
    this.landed.push(step);
    if (step === turn.first) turn.land();
    return result;
  }
}
