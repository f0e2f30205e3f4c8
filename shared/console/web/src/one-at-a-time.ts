/**
 * `run`, one call at a time: calls made while it runs are answered by one more run after it, so a
 * poll, a changed filter and a click never send rounds of requests side by side.
 */
export function oneAtATime(run: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  const call = (): Promise<void> => {
    if (!running) {
      running = run().finally(() => (running = undefined));
      return running;
    }
    const again = () => {
      queued = undefined;
      return call();
    };
    queued ??= running.then(again, again);
    return queued;
  };
  return call;
}
