import { describe, expect, it } from 'vitest';
import { KEY_RELOAD_INTERVAL_MS, KEY_SIGNING_DELAY_MS, KeyRingCache } from '../../../shared/app/keys/key-ring-cache.js';
import type { KeyRing } from '../../../shared/app/keys/key-ring.js';
import { attemptTokens } from '../../../shared/app/pools/attempt-tokens.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import { InvalidTokenError, KeysRefreshingError } from '../../../shared/domain/errors.js';
import { errorResponse } from '../../../shared/http/error-response.js';

const key = (id: string, createdAt: number) => ({ id, key: `region-key-${id}-0123456789abcdef`, createdAt });
const ring = (...keys: ReturnType<typeof key>[]): KeyRing => ({ keys });

/** A container's token signer over a ring that Secrets Manager (`stored`) may have moved past, or be `down`; counts its reads. */
function container(cached: KeyRing, store: { stored: KeyRing; down?: boolean }, clock = { nowMs: 1_000_000 }) {
  const reads = { count: 0 };
  const read = async () => {
    reads.count++;
    if (store.down) throw new Error('ThrottlingException: Rate exceeded');
    return store.stored;
  };
  const cache = new KeyRingCache(cached, read, () => clock.nowMs);
  return { tokens: new WorkflowTokens(cache), reads, clock };
}

const signFor = (tokens: WorkflowTokens) => tokens.sign('job-1', 'wf-1', 'worker-a', 'inc-1');
const verifyFor = (tokens: WorkflowTokens, token: string) => tokens.verify(token, 'worker-a', { jobId: 'job-1', workflowId: 'wf-1' });
/** A token of these tokens' signer naming key `id` instead, with a MAC no key made. */
const forged = (tokens: WorkflowTokens, id: string) => `${signFor(tokens).split('~')[0]?.replace(/\.[^.]+$/, `.${id}`)}~${'A'.repeat(43)}`;

describe('worker tokens across key rotation', () => {
  it('a token signed under an older key of the ring still verifies, without reading the secret', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1), key('k2', 2)) };
    const before = container(ring(key('k1', 1)), store);
    const after = container(store.stored, store);
    const oldToken = signFor(before.tokens);
    // Act
    const claim = await verifyFor(after.tokens, oldToken);
    // Assess
    expect(claim).toMatchObject({ jobId: 'job-1', workflowId: 'wf-1', incarnation: 'inc-1' });
    expect(after.reads.count).toBe(0);
  });

  it('signs with the newest key, naming it in the token', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1), key('k2', 2)) };
    const { tokens } = container(store.stored, store);
    const onlyK2 = container(ring(key('k2', 2)), { stored: ring(key('k2', 2)) });
    // Act
    const token = signFor(tokens);
    // Assess
    expect(token.split('.')[3]).toMatch(/^k2~/);
    await expect(verifyFor(onlyK2.tokens, token)).resolves.toMatchObject({ workflowId: 'wf-1' });
  });

  it('a token under a key newer than the cached ring reloads the ring once, then verifies', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1), key('k2', 2)) };
    const stale = container(ring(key('k1', 1)), store);
    const fresh = container(store.stored, store);
    // Act
    const claim = await verifyFor(stale.tokens, signFor(fresh.tokens));
    // Assess
    expect(claim.workflowId).toBe('wf-1');
    expect(stale.reads.count).toBe(1);
    expect(signFor(stale.tokens).split('.')[3]).toMatch(/^k2~/); // the reload also moves its signing to the new key
  });

  it('a token naming a key the ring does not hold, even after a reload, is refused', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1)) };
    const { tokens, reads } = container(store.stored, store);
    const foreign = container(ring(key('kX', 1)), { stored: ring(key('kX', 1)) });
    // Act
    const verifying = verifyFor(tokens, signFor(foreign.tokens));
    // Assess
    await expect(verifying).rejects.toThrow(InvalidTokenError);
    expect(reads.count).toBe(1);
  });

  it('a second unknown key id within 30 s does not read the secret again but answers keys_refreshing; after 30 s it reads and refuses', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1)) };
    const { tokens, reads, clock } = container(store.stored, store);
    await expect(verifyFor(tokens, forged(tokens, 'f1'))).rejects.toThrow(InvalidTokenError);
    // Act
    clock.nowMs += KEY_RELOAD_INTERVAL_MS - 1;
    const within = await verifyFor(tokens, forged(tokens, 'f2')).catch((error: unknown) => error);
    const readsWithin = reads.count;
    clock.nowMs += 1;
    const after = await verifyFor(tokens, forged(tokens, 'f3')).catch((error: unknown) => error);
    // Assess
    expect(within).toBeInstanceOf(KeysRefreshingError);
    expect(readsWithin).toBe(1);
    expect(after).toBeInstanceOf(InvalidTokenError);
    expect(reads.count).toBe(2);
  });

  it('fifty made-up key ids at once read the secret once and are all refused', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1)) };
    const { tokens, reads } = container(store.stored, store);
    // Act
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => verifyFor(tokens, forged(tokens, `f${i}`)).catch((error: unknown) => error)));
    // Assess
    expect(answers.every((answer) => answer instanceof InvalidTokenError)).toBe(true);
    expect(reads.count).toBe(1);
  });

  it('a token under a key rotated in just after a made-up id made this container read answers keys_refreshing (503), then verifies once it may read again', async () => {
    // Prepare: A reads at t for a made-up id, the key rotates at t+1, B starts at t+2 and signs under it
    const store = { stored: ring(key('k1', 1)) };
    const a = container(store.stored, store);
    await expect(verifyFor(a.tokens, forged(a.tokens, 'made-up'))).rejects.toThrow(InvalidTokenError);
    a.clock.nowMs += 1;
    store.stored = ring(key('k1', 1), key('k2', 2));
    a.clock.nowMs += 1;
    const token = signFor(container(store.stored, store).tokens);
    a.clock.nowMs += 1;
    // Act
    const during = await verifyFor(a.tokens, token).catch((error: unknown) => error);
    a.clock.nowMs += KEY_RELOAD_INTERVAL_MS - 3;
    const claim = await verifyFor(a.tokens, token);
    // Assess
    expect(during).toBeInstanceOf(KeysRefreshingError);
    expect((during as KeysRefreshingError).retryAfterMs).toBe(KEY_RELOAD_INTERVAL_MS - 3);
    expect(claim.workflowId).toBe('wf-1');
    expect(a.reads.count).toBe(2);
  });

  it('a token under a new key arriving while a read that began before the rotation is under way answers keys_refreshing, not invalid_token', async () => {
    // Prepare: a read starts at t and answers the ring of before the rotation; the new-key token asks at t+1
    const before = ring(key('k1', 1));
    const rotated = ring(key('k1', 1), key('k2', 2));
    const clock = { nowMs: 1_000_000 };
    let answer: (ring: KeyRing) => void = () => {};
    const cache = new KeyRingCache(before, () => new Promise<KeyRing>((resolve) => (answer = resolve)), () => clock.nowMs);
    const stale = new WorkflowTokens(cache);
    const madeUp = verifyFor(stale, forged(stale, 'made-up')).catch((error: unknown) => error);
    clock.nowMs += 1;
    // Act
    const verifying = verifyFor(stale, signFor(new WorkflowTokens(new KeyRingCache(rotated, undefined, () => clock.nowMs)))).catch((error: unknown) => error);
    answer(before);
    // Assess
    expect(await madeUp).toBeInstanceOf(InvalidTokenError);
    expect(await verifying).toBeInstanceOf(KeysRefreshingError);
  });

  it('a failed read answers keys_refreshing (503, not 500 nor 403) and counts for the throttle; the next read verifies', async () => {
    // Prepare
    const store = { stored: ring(key('k1', 1), key('k2', 2)), down: true };
    const stale = container(ring(key('k1', 1)), store);
    const token = signFor(container(store.stored, store).tokens);
    // Act
    const whileDown = await verifyFor(stale.tokens, token).catch((error: unknown) => error);
    store.down = false;
    stale.clock.nowMs += KEY_RELOAD_INTERVAL_MS - 1;
    const withinWindow = await verifyFor(stale.tokens, token).catch((error: unknown) => error);
    const readsWithin = stale.reads.count;
    stale.clock.nowMs += 1;
    const claim = await verifyFor(stale.tokens, token);
    // Assess
    expect(whileDown).toBeInstanceOf(KeysRefreshingError);
    expect(errorResponse(whileDown)).toMatchObject({ statusCode: 503, unexpected: false, body: { error: { code: 'keys_refreshing' } } });
    expect(withinWindow).toBeInstanceOf(KeysRefreshingError);
    expect(readsWithin).toBe(1);
    expect(claim.workflowId).toBe('wf-1');
    expect(stale.reads.count).toBe(2);
  });

  it('tokens under a new key arriving while the ring is being read all wait for that one read', async () => {
    // Prepare
    const rotated = ring(key('k1', 1), key('k2', 2));
    let answer: (ring: KeyRing) => void = () => {};
    let reads = 0;
    const cache = new KeyRingCache(ring(key('k1', 1)), () => (reads++, new Promise<KeyRing>((resolve) => (answer = resolve))), () => 0);
    const stale = new WorkflowTokens(cache);
    const token = signFor(new WorkflowTokens(new KeyRingCache(rotated, async () => rotated, () => 2 + KEY_SIGNING_DELAY_MS)));
    // Act
    const verifying = Promise.all([verifyFor(stale, token), verifyFor(stale, token), verifyFor(stale, token)]);
    answer(rotated);
    const claims = await verifying;
    // Assess
    expect(claims.map((c) => c.workflowId)).toEqual(['wf-1', 'wf-1', 'wf-1']);
    expect(reads).toBe(1);
  });

  it("an agent's attempt token under a key this container cannot read yet answers keys_refreshing too, not the attempt's invalid_token", async () => {
    // Prepare: this container's read failed a moment ago; the attempt was claimed on a container that has the new key
    const store = { stored: ring(key('k1', 1), key('k2', 2)), down: true };
    const stale = container(ring(key('k1', 1)), store);
    const token = attemptTokens(container(store.stored, store).tokens).sign('pool-1', 'item-1', 1);
    // Act
    const refused = await attemptTokens(stale.tokens).verify(token, 'pool-1', 'item-1', 1).catch((error: unknown) => error);
    // Assess
    expect(refused).toBeInstanceOf(KeysRefreshingError);
  });

  it('a bare (legacy) key signs tokens as before rotation, which a ring keeping it as key 0 verifies', async () => {
    // Prepare
    const legacy = new WorkflowTokens(Buffer.from('legacy-secret-value'));
    const rotated = container(ring({ id: '0', key: 'legacy-secret-value', createdAt: 0 }, key('k1', 1)), { stored: ring(key('k1', 1)) });
    const issuedBeforeRotation = signFor(legacy).replace('.0~', '.'); // the layout before key ids
    // Act
    const claim = await verifyFor(rotated.tokens, issuedBeforeRotation);
    // Assess
    expect(issuedBeforeRotation.split('.')).toHaveLength(4);
    expect(claim.incarnation).toBe('inc-1');
    expect(rotated.reads.count).toBe(0);
  });

  it.each([
    ['an empty key id', (t: string) => t.replace('.k1~', '.~')],
    ['two key separators', (t: string) => t.replace('.k1~', '.k1~k1~')],
    ['an empty MAC', (t: string) => t.slice(0, t.indexOf('~') + 1)],
    ['another key id on the same MAC', (t: string) => t.replace('.k1~', '.0~')],
  ])('refuses a token with %s', async (_, change) => {
    // Prepare
    const store = { stored: ring({ id: '0', key: 'legacy-secret-value', createdAt: 0 }, key('k1', 1)) };
    const { tokens } = container(store.stored, store);
    // Act / Assess
    await expect(verifyFor(tokens, change(signFor(tokens)))).rejects.toThrow(InvalidTokenError);
  });
});
