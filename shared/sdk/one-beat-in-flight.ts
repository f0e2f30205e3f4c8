/**
 * The SDK's own heartbeats, never more than one in flight. A Vigil that accepts connections and
 * answers slowly or not at all (overloaded, hung) held every beat for its retries while the cadence
 * sent more: dozens at once, adding load to a Vigil already struggling and holding the worker's sockets.
 *
 * A beat that comes due while one is outstanding is owed, and goes as soon as that one settles (once,
 * however many came due meanwhile). Not skipped: AD-26's 30 s health window runs from when Vigil
 * last read a call, and the beat in flight may have been read long before its answer came (or never,
 * if it failed after its retries): skipped, the next beat would wait a whole interval more. Owed, a
 * beat reaches Vigil at the cadence, or as fast as Vigil answers when it is slower; and a beat meant
 * to follow an event (a checkpoint request opening) is always sent after it, not stood in for by one
 * Vigil may have read before it. The deadline watch and the caller's own calls never wait for this:
 * only the periodic beats go through it.
 */
export class OneBeatInFlight {
  private outstanding = false;
  private owed = false;
  private stopped = false;

  /** `send` starts a beat and settles (never rejects) when it is answered or given up on. */
  constructor(private readonly send: () => Promise<void>) {}

  /** A beat is due: it goes now, or as soon as the one in flight settles. */
  due(): void {
    if (this.stopped) return;
    if (this.outstanding) {
      this.owed = true;
      return;
    }
    this.outstanding = true;
    void this.send().finally(() => {
      this.outstanding = false;
      if (this.owed) {
        this.owed = false;
        this.due();
      }
    });
  }

  /** Another call to Vigil went out, which serves as the beat owed. */
  served(): void {
    this.owed = false;
  }

  /** No beat goes any more, not even one owed. */
  stop(): void {
    this.stopped = true;
    this.owed = false;
  }
}
