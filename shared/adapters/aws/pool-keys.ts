import { POOL_KEY_PREFIX } from './jobs-table.js';

/** A pool's rows share its partition: the pool (`POOL`), its items (`ITEM#<itemId>`) and their bookkeeping. */
export const ITEM_PREFIX = 'ITEM#';
export const poolPk = (poolId: string) => `${POOL_KEY_PREFIX}${poolId}`;
export const itemKey = (poolId: string, itemId: string) => ({ pk: poolPk(poolId), sk: `${ITEM_PREFIX}${itemId}` });
export const itemIdOfKey = (sk: unknown): string => String(sk).slice(ITEM_PREFIX.length);
