import { describeCrashPoint, type CrashPoint } from './crash-point.js';
import { CrashTally } from './crash-tally.js';
import type { AfterWrite } from '../dynamo/sim-store.js';

/** A handler died at its crash point (the crash fault): what it wrote before stays, nothing after. */
export class SimulatedCrash extends Error {
  constructor(readonly point: CrashPoint) {
    super(`simulated crash ${describeCrashPoint(point)}`);
    this.name = 'SimulatedCrash';
  }
}

/**
 * One Lambda invocation in flight: where it is to crash (if at all), its store write calls so far,
 * whether one of them took effect, and where it died, once dead: a killed process makes no further
 * call, whatever its code catches.
 */
interface Invocation {
  route: string;
  crash: CrashPoint | undefined;
  writeCalls: number;
  wrote: boolean;
  diedAt: CrashPoint | undefined;
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
  /** Crashes so far, by point and route. */
  readonly crashes = new CrashTally();

  /** `drawCrash`: where a new invocation is to crash, if it is to. */
  constructor(private readonly drawCrash: () => CrashPoint | undefined) {}

  /**
   * Runs `handler` as an invocation of its own on `node` (`route` names it in the crash counts). One
   * that died fails with the crash, however the handler ended: a caught crash does not bring a killed
   * process back.
   */
  async run<T>(node: string, route: string, handler: () => Promise<T>): Promise<T> {
    const invocation: Invocation = { route, crash: this.drawCrash(), writeCalls: 0, wrote: false, diedAt: undefined };
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
    if (invocation.diedAt) throw new SimulatedCrash(invocation.diedAt);
    if ('error' in ended) throw ended.error;
    return ended.answer;
  }

  /**
   * Called by a node's effect ports before acting: an invocation drawn to crash at its effects dies
   * here once it has written.
   */
  crashPoint(node: string): void {
    const invocation = this.running.get(node);
    if (invocation?.crash?.at === 'effects' && invocation.wrote) this.kill(invocation, invocation.crash);
    this.refuseIfDead(node);
  }

  /** The invocation `node` runs now, as an identity (what serves it: its container), if any. */
  current(node: string): object | undefined {
    return this.running.get(node);
  }

  /** Every simulated port calls this first: a dead invocation's call is refused, again each time it tries. */
  refuseIfDead(node: string): void {
    const diedAt = this.running.get(node)?.diedAt;
    if (diedAt) throw new SimulatedCrash(diedAt);
  }

  /**
   * A node's store calls this before each call: a write call is numbered, and may be the one the
   * invocation dies before. For a write, returns what the store calls once it ended: it may be the
   * one the invocation dies after.
   */
  beforeStoreCall(node: string, writes: boolean): AfterWrite | undefined {
    this.refuseIfDead(node);
    const invocation = this.running.get(node);
    if (!invocation || !writes) return undefined;
    const write = ++invocation.writeCalls;
    const { crash } = invocation;
    if (crash?.at === 'before-write' && crash.write === write) this.die(invocation, crash);
    return (tookEffect) => {
      if (tookEffect) invocation.wrote = true;
      if (crash?.at === 'after-write' && crash.write === write) this.die(invocation, crash);
    };
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

  private kill(invocation: Invocation, point: CrashPoint): void {
    if (invocation.diedAt) return;
    invocation.diedAt = point;
    this.crashes.count(describeCrashPoint(point), invocation.route);
  }

  /** At a store write: the process is gone, so the call does not return to the code under test. */
  private die(invocation: Invocation, point: CrashPoint): never {
    this.kill(invocation, point);
    throw new SimulatedCrash(point);
  }
}
