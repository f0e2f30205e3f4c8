import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import type { EventBus } from '../../../shared/ports/event-bus.js';
import type { Timers } from '../../../shared/ports/timers.js';
import type { TestManager } from './test-manager.js';

const DIES = 'vigil-test-process-dies';
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand', 'TransactWriteItemsCommand']);

/** What every call of a killed process meets: it never reaches the store, the bus or the timers. */
export class ProcessKilledError extends Error {
  constructor() {
    super('the process was killed (injected by the test)');
    this.name = 'ProcessKilledError';
  }
}

/**
 * A Lambda of the test manager that dies just before its `beforeWrite`-th store write call: that write
 * and every later call, to the store, the bus or the timers, never happen, whatever its code catches.
 * `deps` are the manager's ports as that process reaches them; `died` says whether it came to that
 * write; `revive` ends the process (the next invocation is a new one).
 */
export function dyingProcess(m: TestManager, beforeWrite: number): { deps: ManagerDeps; died: () => boolean; revive: () => void } {
  let writes = 0;
  let dead = false;
  const refuseIfDead = () => {
    if (dead) throw new ProcessKilledError();
  };
  m.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (!dead && WRITES.has(context.commandName ?? '') && ++writes === beforeWrite) dead = true;
      refuseIfDead();
      return next(args);
    },
    { step: 'initialize', name: DIES },
  );
  const bus: EventBus = {
    publish: async (events) => {
      refuseIfDead();
      await m.deps.bus.publish(events);
    },
  };
  const timers: Timers = {
    arm: async (timer) => {
      refuseIfDead();
      await m.deps.timers.arm(timer);
    },
    disarm: async (...args) => {
      refuseIfDead();
      await m.deps.timers.disarm(...args);
    },
  };
  return { deps: { ...m.deps, bus, timers }, died: () => dead, revive: () => m.doc.middlewareStack.remove(DIES) };
}
