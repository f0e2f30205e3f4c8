/** The gate's knobs; defaults from seed 000 Part 5 and seed 001 §10.8. */
export interface GatePolicy {
  /** Every still-running region without progress this long → global timeout (seed 000 Part 5, condition 3). */
  gateStuckThresholdSeconds: number;
  /** A decision is re-sent this often to the regions that have not reported a final status. */
  rebroadcastSeconds: number;
  /**
   * Timed re-sends stop after this long's worth of them (this / `rebroadcastSeconds` re-sends), so a
   * region that is gone for good costs nothing forever. Counted in re-sends sent, so time the gate was
   * down does not use it up. The decision still reaches a region: any later message from it is answered with it.
   */
  rebroadcastGiveUpSeconds: number;
  /**
   * Condition 1 waits this long past the global deadline for extension reports in flight: a grant
   * just before the deadline, or one whose report was lost and is carried by the region's next
   * periodic report (every `gateReportIntervalSeconds`), moves the deadline only once the gate hears of it. A region that
   * reaches its own deadline reports its timeout at once (condition 2), so this delays only the backstop.
   */
  extensionReportGraceSeconds: number;
}

/** The regions' periodic report interval plus delivery slack: a lost extension report is carried by the next one. */
export const extensionReportGraceFor = (gateReportIntervalSeconds: number): number => gateReportIntervalSeconds + 5;

export const defaultGatePolicy: GatePolicy = {
  gateStuckThresholdSeconds: 180,
  rebroadcastSeconds: 10,
  rebroadcastGiveUpSeconds: 3_600,
  // The managers' default report interval (10 s).
  extensionReportGraceSeconds: extensionReportGraceFor(10),
};
