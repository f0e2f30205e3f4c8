/**
 * Builds a Lambda process's dependencies once and keeps them, but forgets a failed build so the next
 * invocation tries again: one throttled call at cold start must not poison the container for its life.
 */
export function buildOnce<T>(build: () => Promise<T> | T): () => Promise<T> {
  let built: Promise<T> | undefined;
  return () => {
    built ??= Promise.resolve()
      .then(build)
      .catch((error: unknown) => {
        built = undefined;
        throw error;
      });
    return built;
  };
}
