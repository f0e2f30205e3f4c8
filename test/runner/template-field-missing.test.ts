import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil, type Route } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';
import { ItemFieldMissingError } from '../../shared/runner/item-field-missing-error.js';
import { stepArgv } from '../../shared/runner/template-command.js';

// Real processes, real spawns.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that a template step's `${item.<field>}` naming a field the item does not have fails that
 * item, naming the field and the fields it has, with no command started. It was filled in as the
 * text `null`, so a typo (`${item.nmae}`) ran the agent on "null" and spent its attempt.
 */
describe('a template placeholder naming a field the item does not have', () => {
  it('is refused, naming the field and the fields the item has', () => {
    const fill = (text: string, input: unknown) => () => stepArgv({ type: 'shell', text }, 'claude -p', 'i-1', input);
    expect(fill('echo ${item.nmae}', { name: 'n', size: 3 })).toThrow(ItemFieldMissingError);
    expect(fill('echo ${item.nmae}', { name: 'n', size: 3 })).toThrow(/\$\{item\.nmae\}.*'nmae'.*name, size/);
    expect(fill('echo ${item.a.c}', { a: { b: 1 } })).toThrow(/\$\{item\.a\.c\}.*'a' has no field 'c'.*b/);
    expect(fill('echo ${item.a.b}', 'text')).toThrow(/\$\{item\.a\.b\}.*a string/);
  });

  it('a field that is there, null included, and ${item.id} are filled in as before', () => {
    expect(stepArgv({ type: 'claude', text: '${item.a} ${item.id}' }, 'claude -p', 'i-1', { a: null })).toEqual(['claude', '-p', 'null i-1']);
  });

  describe('vigil run', () => {
    const vigil = useFakeVigil();

    const poolWithTemplate = (template: unknown[], input: unknown): Route => (method, path, _body, seen) => {
      if (method === 'GET' && path === '/pools/pool-1') return { status: 200, body: { poolId: 'pool-1', status: 'RUNNING', config: { agent_template: template } } };
      if (path.endsWith('/claims')) {
        if (seen.filter((s) => s.path.endsWith('/claims')).length > 1) return { status: 204 };
        const commands = template.map((_, index) => ({ index, type: 'shell', limitSeconds: 60 }));
        return { status: 200, body: { itemId: 'item-1', attempt: 1, token: 'tok-1', input, deadlineAt: iso(Date.now() + 60_000), commands, checkpointIntervalSeconds: 300, lastCheckpoint: null } };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.includes('/commands/') && path.endsWith('/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/finish') || path.endsWith('/complete')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    };

    it('fails the item with command_cannot_start, naming the field, and starts no command of it', async () => {
      // Prepare: a first step that leaves a mark, a second with a typo
      const mark = join(vigil.scratch(), 'first-step-ran');
      const fake = await vigil.fakeVigil(poolWithTemplate([{ shell: `touch ${mark}` }, { shell: 'echo ${item.nmae}' }], { name: 'n', size: 3 }));
      // Act
      const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.5'], { timeoutMs: 45_000 });
      // Assess
      const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`).join('\n');
      const context = `${result.transcript}\ncalls:\n${calls}`;
      expect(result.code, context).toBe(1);
      expect(existsSync(mark), context).toBe(false);
      expect(fake.seen.filter((s) => s.path.includes('/commands/')), context).toEqual([]);
      const completes = fake.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/complete'));
      expect(completes, context).toHaveLength(1);
      expect(completes[0]?.body, context).toMatchObject({ outcome: 'failed', result: { error: { code: 'command_cannot_start' } } });
      expect(JSON.stringify(completes[0]?.body), context).toMatch(/nmae.*name, size/);
      expect(result.stderr, context).toContain('${item.nmae}');
    });
  });
});
