import { InvalidRequestError } from '../../domain/errors.js';
import { answerEscalation as decideAnswer, type EscalationAnswer } from '../../domain/pools/item-answers.js';
import { assertReopenable } from '../../domain/pools/pool-decisions.js';
import { EscalationAnsweredError, EscalationNotFoundError, SubtaskExistsError } from '../../domain/pools/pool-errors.js';
import { ESCALATION_OPTIONS, type PoolItem } from '../../domain/pools/pool-item.js';
import { parseEscalationId } from '../../domain/pools/resolve-attempt.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { runFollowUps } from './follow-ups.js';
import { decideItem, loadOwnPool } from './pool-state-stores.js';

/** Escalations per page: each answer entry is at most ~15 KB (100 subtask ids), so a page stays far below the answer budget. */
export const ESCALATIONS_PAGE_SIZE = 50;

/**
 * `GET /escalations?poolId=…&cursor=`: the questions (pending and answered), in escalation-id order
 * (so one pool's item's questions sit together); the item holds each one's state. The cursor is the
 * `nextCursor` of the previous answer: the last escalation id read, sealed for this tenant and
 * `poolId` (the pointers of every tenant share one partition, so the last one read is often another
 * tenant's). Only the caller's tenant's: with `poolId` its pool (another tenant's is a 404), without
 * it every pool of the tenant, so a page may hold fewer than a page size, even none, and still have a
 * `nextCursor`.
 */
export async function listEscalations(deps: ManagerDeps, poolId: string | undefined, cursor?: string, tenant: string = DEFAULT_TENANT) {
  const scope = ['GET /escalations', tenant, poolId ?? ''];
  const after = cursor === undefined ? undefined : await deps.cursors.open(cursor, scope);
  if (poolId !== undefined) await loadOwnPool(deps, poolId, tenant);
  const { pointers, more, readUpTo } = await deps.pools.listEscalationPointers(poolId === undefined ? { tenant } : { poolId }, ESCALATIONS_PAGE_SIZE, after);
  const items = await deps.pools.getItems(pointers.map((pointer) => ({ poolId: pointer.poolId, itemId: pointer.itemId })));
  const byKey = new Map(items.map((item) => [`${item.poolId}/${item.itemId}`, item]));
  const escalations = pointers.flatMap((pointer) => {
    const item = byKey.get(`${pointer.poolId}/${pointer.itemId}`);
    if (!item?.escalation) return [];
    const current = item.escalation.escalationId === pointer.escalationId ? item.escalation : undefined;
    return [
      {
        escalationId: pointer.escalationId,
        poolId: pointer.poolId,
        itemId: pointer.itemId,
        question: current?.question ?? `Task ${pointer.itemId} timed out repeatedly.`,
        options: [...ESCALATION_OPTIONS],
        askedAt: toIso(pointer.askedAt),
        status: current?.status ?? 'answered',
        ...(current?.answer ? { answer: { ...current.answer, at: toIso(current.answer.at) } } : {}),
      },
    ];
  });
  return { escalations, ...(more && readUpTo ? { nextCursor: deps.cursors.seal(readUpTo, scope) } : {}) };
}

/** `POST /escalations/{escalationId}/answer`: applied at once; a second answer is a 409. */
export async function answerEscalation(deps: ManagerDeps, escalationId: string, answer: EscalationAnswer, tenant: string = DEFAULT_TENANT) {
  const ids = parseEscalationId(escalationId);
  if (!ids) throw new EscalationNotFoundError(escalationId);
  // Another tenant's pool hides its escalations as a missing pool does.
  const pool = await loadOwnPool(deps, ids.poolId, tenant).catch(() => {
    throw new EscalationNotFoundError(escalationId);
  });
  const item = await deps.pools.getItem(ids.poolId, ids.itemId);
  if (!item || !(await wasAsked(deps, item, escalationId))) throw new EscalationNotFoundError(escalationId);
  const now = deps.clock.now();
  decideAnswer(item, escalationId, answer, pool.config, now); // refuses a second answer before anything is written
  if (answer.option !== 'skip') assertReopenable(pool);
  if (answer.option === 'split') await assertSubtasksAreNew(deps, ids.poolId, answer.subtasks ?? [], escalationId);
  // One write decides the answer, the split's subtasks and the pool's reopening included (as the
  // item's follow-ups, carried out after it and repeated after a crash): a refused answer changes nothing.
  const subtaskIds = answer.option === 'split' ? (answer.subtasks ?? []).map((task) => task.itemId) : [];
  const { item: answered } = await decideItem(deps, ids.poolId, ids.itemId, (current) => decideAnswer(current, escalationId, answer, pool.config, now), item).catch(
    async (error: unknown) => {
      // A refused answer changes nothing: the ids it reserved are free again, but for those the answer that won split into.
      if (error instanceof EscalationAnsweredError) {
        const winner = (await deps.pools.getItem(ids.poolId, ids.itemId))?.escalation?.answer?.subtasks ?? [];
        await releaseSubtaskIdsBut(deps, ids.poolId, escalationId, winner);
      }
      throw error;
    },
  );
  // An earlier answer to this escalation that reserved ids and then failed (or was cut off) before its
  // write left them held: once the answer is decided, only its own split keeps any. Best effort: the
  // answer is written, and a failed release must not turn it into an error its retry would get 409 for.
  await releaseSubtaskIdsBut(deps, ids.poolId, escalationId, subtaskIds).catch((error: unknown) =>
    deps.telemetry.warn('subtask ids reserved by an earlier answer not released', { poolId: ids.poolId, escalationId, error: String(error) }),
  );
  await runFollowUps(deps, answered, pool);
  deps.telemetry.info('escalation answered', { poolId: ids.poolId, itemId: ids.itemId, escalationId, option: answer.option });
  return { escalationId, status: 'answered', option: answer.option, itemState: answered.state };
}

/**
 * The item's current question, or an earlier one of it (answered, since an item is asked again only
 * once its question was answered): an id never issued is unknown (404), not "already answered" (409).
 */
async function wasAsked(deps: ManagerDeps, item: PoolItem, escalationId: string): Promise<boolean> {
  if (item.escalation?.escalationId === escalationId) return true;
  return (await deps.pools.getEscalationPointer(escalationId))?.itemId === item.itemId;
}

async function releaseSubtaskIdsBut(deps: ManagerDeps, poolId: string, escalationId: string, kept: readonly string[]): Promise<void> {
  const held = await deps.pools.subtaskIdsHeldBy(poolId, escalationId);
  const leftOver = held.filter((itemId) => !kept.includes(itemId));
  if (leftOver.length > 0) await deps.pools.releaseSubtaskIds(poolId, leftOver, escalationId);
}

/**
 * A subtask is a new item: an id the pool already has, or one another split named whose subtasks are
 * not yet created (a racing answer, or one whose creation a crash postponed), would be skipped by the
 * create-only write, and its work lost. The ids are reserved for this split first, so of two splits
 * naming one id exactly one gets it.
 */
async function assertSubtasksAreNew(deps: ManagerDeps, poolId: string, subtasks: ReadonlyArray<{ itemId: string }>, escalationId: string): Promise<void> {
  const itemIds = subtasks.map((task) => task.itemId);
  if (new Set(itemIds).size !== itemIds.length) {
    throw new InvalidRequestError('Each subtask needs its own itemId; two have the same one. Give every subtask a distinct id.');
  }
  const existing = await deps.pools.getItems(itemIds.map((itemId) => ({ poolId, itemId })));
  if (existing.length > 0) throw new SubtaskExistsError(poolId, existing.map((item) => item.itemId));
  const heldByAnotherSplit = await deps.pools.reserveSubtaskIds(poolId, itemIds, escalationId);
  if (heldByAnotherSplit.length > 0) throw new SubtaskExistsError(poolId, heldByAnotherSplit);
}
