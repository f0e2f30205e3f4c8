/** The HTTP `Date` header names whole seconds: Vigil read that second or up to 1 s past it. */
const DATE_HEADER_RESOLUTION_MS = 1_000;

/** Where Vigil's clock stands against this machine's: offset = Vigil's time − this machine's time. */
export interface OffsetBounds {
  lowMs: number;
  highMs: number;
}

/**
 * Vigil's clock as this machine sees it. Vigil's times in answers (`deadlineAt`, `terminateBy`) are on
 * Vigil's clock, which need not be this machine's: an unsynced VM, a laptop after a sleep, the local
 * cloud's virtual clock. Every answer carries Vigil's time in its HTTP `Date` header (API Gateway,
 * Lambda function URLs and the local cloud send one, the local cloud on its virtual clock too), written
 * between the request leaving and the answer arriving: one answer bounds the offset to the header's
 * second plus the round trip. Within those bounds this machine's clock is taken as Vigil's (a synced
 * machine keeps its millisecond precision); outside them, the nearer bound is. Only the latest answer
 * counts: an older one may be from before Vigil's clock moved (an NTP step, a virtual advance).
 */
export class VigilClock {
  private bounds: OffsetBounds | undefined;

  constructor(readonly now: () => number = Date.now) {}

  /** Learns from one answer: its `Date` header and when its request was sent (it arrived now). */
  observe(dateHeader: string | null | undefined, sentAtMs: number): void {
    const vigilMs = dateHeader ? Date.parse(dateHeader) : Number.NaN;
    if (!Number.isFinite(vigilMs)) return;
    this.bounds = { lowMs: vigilMs - this.now(), highMs: vigilMs + DATE_HEADER_RESOLUTION_MS - sentAtMs };
  }

  /** Undefined until an answer carried a `Date` header. */
  offsetBounds(): OffsetBounds | undefined {
    return this.bounds;
  }

  /** Vigil's time minus this machine's: 0 while the latest answer allows it, else its nearer bound. */
  offsetMs(): number {
    const bounds = this.bounds;
    return bounds ? Math.min(Math.max(0, bounds.lowMs), bounds.highMs) : 0;
  }

  /** When Vigil's clock reads `vigilMs`, on this machine's. */
  toLocalMs(vigilMs: number): number {
    return vigilMs - this.offsetMs();
  }

  /** `toLocalMs` of an optional time; undefined stays undefined. */
  localMsOf(vigilMs: number | undefined): number | undefined {
    return vigilMs === undefined ? undefined : this.toLocalMs(vigilMs);
  }

  /** Vigil's time now: for showing how long is left. */
  vigilNowMs(): number {
    return this.now() + this.offsetMs();
  }
}
