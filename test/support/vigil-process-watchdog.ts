/**
 * Preloaded into a Vigil process a test starts (`node --import tsx --import <this> shared/local/main.ts`):
 * when the test process that started it is gone (killed, Ctrl-C), Vigil stops too, as it does on
 * SIGTERM, instead of running on in its own process group. Does nothing else.
 */
const parentPid = process.ppid;
const CHECK_EVERY_MS = 500;
const FORCE_EXIT_AFTER_MS = 5_000;

const watch = setInterval(() => {
  if (process.ppid === parentPid) return;
  clearInterval(watch);
  process.kill(process.pid, 'SIGTERM');
  setTimeout(() => process.exit(1), FORCE_EXIT_AFTER_MS).unref();
}, CHECK_EVERY_MS);
watch.unref();
