import type { BusEvent } from '../../ports/event-bus.js';
import type { EpochMs } from '../time.js';
import type { TenantOwned } from '../tenant.js';
import type { PoolConfig } from './pool-config.js';
import type { RunningItemsPass } from './running-items-pass.js';

/**
 * `CREATING` while the create writes the items: the pool item is written first so a second create
 * with another body is refused before it writes anything; nothing sees the pool until it is RUNNING.
 */
export type PoolStatus = 'CREATING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'CANCELLED';

/**
 * The pool item: config and status only. Counts are derived from the items by query, so a big
 * pool's claims and completions never contend on this one item (ARCHITECTURE, agent fleets).
 */
export interface Pool extends TenantOwned {
  poolId: string;
  status: PoolStatus;
  config: PoolConfig;
  itemCount: number;
  createdAt: EpochMs;
  finishedAt?: EpochMs;
  /**
   * Reopenings asked for (a redrive, an answer), counted even when the pool was still RUNNING: the
   * write moves the pool's version, so a completion counted before the item came back loses its
   * conditional write and counts again.
   */
  reopens?: number;
  /**
   * Items a redrive or an answer opened (or created) within the last `INDEX_SETTLED_MS`: the pool's
   * index may not show them yet, so a completion reads them from the table (`item-census.ts`).
   */
  openedLately?: Array<{ itemId: string; at: EpochMs }>;
  /** When more were opened at once than `openedLately` keeps: for a while a completion counts the table. */
  openedLatelyForgottenAt?: EpochMs;
  /** Why the pool FAILED or was CANCELLED. */
  reason?: string;
  /** A digest of the submission and its tenant: the same poolId with another body is a conflict. */
  submissionHash: string;
  /**
   * A stopped pool's wake pass: its running items still to be told to terminate (`wake-pass.ts`).
   * Written by the stop's own write; present until every running item was reached.
   */
  wakePass?: RunningItemsPass;
  /** The pool's wake-up: the next chunk of its wake pass, or its outbox's retry. */
  timerDueAt?: EpochMs;
  /** Written and drained by the app layer's transactional outbox; the domain never sets it. */
  outbox?: BusEvent[];
  version: number;
}

export const poolIsStopped = (pool: Pick<Pool, 'status'>): boolean => pool.status === 'FAILED' || pool.status === 'CANCELLED';
