/** How long a round waits for a listener before it shows the others' news and says that one is not answering. */
export const PATIENCE_MS = 2_000;

/** What the page knows of one listener: its latest answer or failure, and whether a call is overdue. */
export interface ListenerState<Answer> {
  source: string;
  /** The latest answer, kept when a later call fails: a moment's failure does not blank what the page showed. */
  answer?: Answer;
  /** Why the latest call failed (the console's own server did not answer); cleared by the next answer. */
  error?: unknown;
  /** How long the call under way has waited, once that is the patience or longer. */
  overdueMs?: number;
}

/**
 * Asks every listener on its own and keeps each one's latest answer. A round waits for its listeners'
 * answers at most `patienceMs`: one listener that hangs neither holds back the others' news nor goes
 * unreported (its call is overdue), and it is not asked again before it answers.
 */
export class ListenerRounds<Answer> {
  private readonly latest = new Map<string, { answer?: Answer; error?: unknown }>();
  private readonly asking = new Map<string, { since: number; settled: Promise<void> }>();

  constructor(
    private readonly ask: (source: string) => Promise<Answer>,
    private readonly patienceMs: number,
  ) {}

  async round(sources: readonly string[]): Promise<void> {
    for (const source of sources) if (!this.asking.has(source)) this.start(source);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const patience = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.patienceMs)));
    await Promise.race([Promise.all(sources.map((source) => this.asking.get(source)?.settled)), patience]);
    clearTimeout(timer);
  }

  states(sources: readonly string[]): Array<ListenerState<Answer>> {
    const now = Date.now();
    return sources.map((source) => {
      const waited = now - (this.asking.get(source)?.since ?? now);
      return { source, ...this.latest.get(source), ...(waited >= this.patienceMs ? { overdueMs: waited } : {}) };
    });
  }

  private start(source: string): void {
    const settled = this.ask(source).then(
      (answer) => void this.latest.set(source, { answer }),
      (error: unknown) => void this.latest.set(source, { ...this.latest.get(source), error }),
    );
    this.asking.set(source, { since: Date.now(), settled: settled.finally(() => this.asking.delete(source)) });
  }
}
