import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import { installManagerResolver } from '../../../shared/wiring/manager-resolver.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { DEFAULT_TENANT } from '../../../shared/domain/tenant.js';
import { invoke, type HttpAnswer, type HttpRequest } from './http-events.js';
import { testManager, type TestDynamo, type TestManager } from './test-manager.js';

// Tenant T on AWS: an assumed role, whatever its session; tenant U: another account's user.
export const T_ROLE = 'arn:aws:sts::111111111111:assumed-role/team-t';
export const T_SESSION_1 = `${T_ROLE}/session-1`;
export const T_SESSION_2 = `${T_ROLE}/session-2`;
export const U_USER = 'arn:aws:iam::222222222222:user/mallory';

export type Caller = Pick<HttpRequest, 'iamUserArn' | 'headers'>;
export const asT: Caller = { iamUserArn: T_SESSION_2 };
export const asU: Caller = { iamUserArn: U_USER };

/** The properties' two tenants: T signs its calls with any session of one role (AWS); U is the default tenant (no IAM, no header). */
export const TWO_TENANTS = { T: T_ROLE, U: DEFAULT_TENANT } as const;
export type Actor = keyof typeof TWO_TENANTS;
export const callerOf = (actor: Actor, session: number): Pick<HttpRequest, 'iamUserArn'> => (actor === 'T' ? { iamUserArn: `${T_ROLE}/session-${session}` } : {});

export interface TenantCall<Op extends string> {
  actor: Actor;
  session: number;
  op: Op;
  id: string;
}

/**
 * Scripts of both tenants' calls on a few ids: first some creates (by either tenant), so most later
 * calls meet a resource someone owns, then any ops.
 */
export function tenantScripts<Op extends string>(create: Op, ops: readonly Op[], ids: readonly string[], lengths: { creates: number; calls: number }) {
  const actor = fc.constantFrom<Actor>('T', 'U');
  const session = fc.integer({ min: 1, max: 3 });
  const id = fc.constantFrom(...ids);
  const creates = fc.array(fc.record({ actor, session, op: fc.constant(create), id }), { minLength: 1, maxLength: lengths.creates });
  const rest = fc.array(fc.record({ actor, session, op: fc.constantFrom(...ops), id }), { minLength: 1, maxLength: lengths.calls });
  return fc.tuple(creates, rest).map(([first, then]): Array<TenantCall<Op>> => [...first, ...then]);
}

export interface IsolationScript<Op extends string> {
  /** The op that creates a resource: its first call on an id answers 201 and makes the caller its owner. */
  create: Op;
  request: (call: TenantCall<Op>) => Parameters<typeof invoke>;
  /** Whose a stored item is, knowing each id's owner. */
  ownerOfItem: (item: Record<string, unknown>, owners: ReadonlyMap<string, string>) => string;
  /** What the answer must be, once nothing of another tenant changed; `owner` is the id's owner before the call. */
  check: (call: TenantCall<Op>, answer: HttpAnswer, context: { tenant: string; owner: string | undefined; owners: ReadonlyMap<string, string> }) => void;
}

/** Runs a script call by call, checking after each that nothing of another tenant changed, then the answer. */
export async function runIsolated<Op extends string>(m: TestManager, script: ReadonlyArray<TenantCall<Op>>, spec: IsolationScript<Op>): Promise<void> {
  const owners = new Map<string, string>();
  for (const call of script) {
    const tenant = TWO_TENANTS[call.actor];
    const othersItems = async () => (await m.snapshot()).filter((item) => spec.ownerOfItem(item, owners) !== tenant);
    const before = await othersItems();
    const answer = await invoke(...spec.request(call));
    const owner = owners.get(call.id);
    if (call.op === spec.create && owner === undefined) {
      expect(answer.statusCode).toBe(201);
      owners.set(call.id, tenant);
    }
    // Nothing of another tenant changed, whatever the call and its answer.
    expect(await othersItems()).toEqual(before);
    if (call.op === spec.create && owner !== undefined) expect(answer.statusCode).toBe(owner === tenant ? 200 : 409);
    spec.check(call, answer, { tenant, owner, owners });
  }
}

/** One dynalite for all of a property's runs; `fresh()` gives a run its own tables, and the handlers its manager. */
export function usePropertyManagers(): { fresh: () => Promise<TestManager> } {
  let dynamo: TestDynamo;
  let current: TestManager | undefined;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    installManagerResolver(async () => {
      if (!current) throw new Error('no run has started');
      return current.deps;
    });
  });
  afterAll(() => dynamo.close());
  return { fresh: async () => (current = await testManager(dynamo)) };
}
