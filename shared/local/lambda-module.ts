import { buildOnce } from '../wiring/build-once.js';

/** Every loader `lambdaHandler` made, for `loadLambdaHandlers`. */
const declared: Array<() => Promise<unknown>> = [];

/**
 * A Lambda handler module, loaded on its first call as a cold start would and kept from then on:
 * an `import()` on every call still resolves the module through the loader (under tsx, a round
 * trip to its hooks thread), which the bench's CPU profile found on every local request and timer.
 */
export const lambdaHandler = <Handler>(load: () => Promise<{ handler: Handler }>): (() => Promise<Handler>) => {
  const loaded = buildOnce(async () => (await load()).handler);
  declared.push(loaded);
  return loaded;
};

/** Loads every handler module declared with `lambdaHandler` (see `loadHandlerModules`). */
export const loadLambdaHandlers = (): Promise<unknown> => Promise.all(declared.map((load) => load()));
