/** A handler died between its state write and its effects (the crash fault). */
export class SimulatedCrash extends Error {
  constructor() {
    super('simulated crash after the write, before the effects');
    this.name = 'SimulatedCrash';
  }
}

/**
 * One Lambda invocation in flight: whether it is to crash after its first write, whether it wrote,
 * and whether it is dead (crashed): a killed process makes no further call, whatever its code catches.
 */
interface Invocation {
  crashAfterWrite: boolean;
  wrote: boolean;
  dead: boolean;
}

/**
 * The invocation running on each node (a region or the gate), which that node's ports serve. A node
 * runs one at a time: events run one at a time, and an invocation that calls another either waits
 * for it (a client's next call made from its answer) or calls other nodes (the gate its regions, in
 * parallel), whose invocations keep their own. Not AsyncLocalStorage: on Node 20 its promise hooks
 * doubled the simulator's CPU time.
 */
export class Invocations {
  private readonly running = new Map<string, Invocation>();

  /** `drawCrash`: whether a new invocation is to crash after its first write. */
  constructor(private readonly drawCrash: () => boolean) {}

  /**
   * Runs `handler` as an invocation of its own on `node`. One that died fails with the crash, however
   * the handler ended: a caught crash does not bring a killed process back.
   */
  async run<T>(node: string, handler: () => Promise<T>): Promise<T> {
    const invocation: Invocation = { crashAfterWrite: this.drawCrash(), wrote: false, dead: false };
    const waiting = this.running.get(node);
    this.running.set(node, invocation);
    let ended: { answer: T } | { error: unknown };
    try {
      ended = { answer: await handler() };
    } catch (error) {
      ended = { error };
    } finally {
      if (waiting) this.running.set(node, waiting);
      else this.running.delete(node);
    }
    if (invocation.dead) throw new SimulatedCrash();
    if ('error' in ended) throw ended.error;
    return ended.answer;
  }

  /**
   * Called by a node's effect ports before acting: the crash fault strikes here, after a write, and
   * the invocation is dead from then on.
   */
  crashPoint(node: string): void {
    const invocation = this.running.get(node);
    if (invocation?.crashAfterWrite && invocation.wrote) invocation.dead = true;
    this.refuseIfDead(node);
  }

  /** Every simulated port calls this first: a dead invocation's call is refused, again each time it tries. */
  refuseIfDead(node: string): void {
    if (this.running.get(node)?.dead) throw new SimulatedCrash();
  }

  /** A node's store calls this after every write. */
  noteWrite(node: string): void {
    const invocation = this.running.get(node);
    if (invocation) invocation.wrote = true;
  }

  /**
   * What a handler on `node` answers reaches its caller only from a live invocation: one that crashed
   * fails its caller as a killed Lambda would, even if the code under test caught the crash and answered.
   */
  async answerOf<T>(node: string, handled: Promise<T>): Promise<T> {
    try {
      return await handled;
    } finally {
      this.refuseIfDead(node);
    }
  }
}
