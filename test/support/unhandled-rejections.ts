import { afterEach, beforeEach } from 'vitest';

/** The unhandled rejections of each test in this suite (each would crash a Node process), collected instead. */
export function useUnhandledRejections(): unknown[] {
  const unhandled: unknown[] = [];
  const collect = (reason: unknown) => void unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', collect);
  });
  afterEach(() => {
    process.off('unhandledRejection', collect);
  });
  return unhandled;
}
