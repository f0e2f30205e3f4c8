import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Each case spawns the real command.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: an operator answers an escalation with a flag of another option
 * (`vigil escalations answer E clarify --clarification "…" --timeout 1800`, meaning both). The API
 * keeps the fields of the answer's own option only (a body may carry every option's), so the
 * `--timeout` was dropped without a word, and an escalation is answered once: a second answer is
 * refused (409). The item went back with its old limit, to time out again.
 *
 * Correct behaviour (contract: bad usage is exit 2 with how to fix it, and changes nothing): the
 * command refuses a flag its option does not use, names it and the option it belongs to, and sends nothing.
 */
describe('vigil escalations answer with a flag its option does not use', () => {
  const vigil = useFakeVigil();

  it.each([
    ['clarify', ['--clarification', 'use the EU dataset', '--timeout', '1800'], '--timeout', 'increase_timeout'],
    ['skip', ['--clarification', 'not needed'], '--clarification', 'clarify'],
    ['increase_timeout', ['--timeout', '1800', '--subtasks', 'SUBTASKS'], '--subtasks', 'split'],
  ])('%s with %j exits 2 naming the stray flag, and answers nothing', async (option, flags, stray, itsOption) => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { escalationId: 'p~i~3', status: 'answered' } }));
    const subtasks = join(vigil.scratch(), 'subtasks.json');
    writeFileSync(subtasks, JSON.stringify([{ itemId: 'i-a' }]));
    const args = flags.map((flag) => (flag === 'SUBTASKS' ? subtasks : flag));
    // Act
    const result = await runVigil(['escalations', 'answer', 'p~i~3', option, ...args, '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain(stray);
    expect(result.stderr, result.transcript).toContain(itsOption);
    expect(fake.seen, result.transcript).toEqual([]);
  });

  it('the flag of its own option is sent as before', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 200, body: { escalationId: 'p~i~3', status: 'answered' } }));
    // Act
    const result = await runVigil(['escalations', 'answer', 'p~i~3', 'clarify', '--clarification', 'use the EU dataset', '--endpoint', fake.url]);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(fake.seen.map(({ path, body }) => ({ path, body }))).toEqual([{ path: '/escalations/p~i~3/answer', body: { option: 'clarify', clarification: 'use the EU dataset' } }]);
  });
});
