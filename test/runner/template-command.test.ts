import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { interpolate, stepArgv } from '../../shared/runner/template-command.js';

/** What `sh` prints for a shell step whose command is `printf '[%s]' …`: each argument in brackets. */
/** Everything a shell reads specially, often, beside any other character. */
const SHELL_SPECIALS = fc.constantFrom("'", '"', '\\', '$', '`', ';', ' ', '\n', '\t', '(', ')', '&', '|', '*', '?', '~', '#', '!', '{', '}', '<', '>', '$(', '${');
const run = (argv: string[]) => execFileSync(argv[0] ?? 'sh', argv.slice(1), { encoding: 'utf8' });
const shell = (text: string, input: unknown, itemId = 'i-1') => run(stepArgv({ type: 'shell', text }, 'claude -p', itemId, input));

// Review finding: `${item}` was pasted into `sh -c` as text, so an item's input ran as shell code.
describe('a shell step fills in the item as data, never as shell syntax', () => {
  it('an input that tries to run a command is one argument, wherever the template puts it', () => {
    // Prepare
    const input = { id: `a'b"c; echo pwned $(echo sub) \`echo tick\` \\ end` };
    // Act
    const bare = shell("printf '[%s]' ${item.id}", input);
    const doubled = shell('printf \'[%s]\' "id=${item.id}!"', input);
    const single = shell("printf '[%s]' 'id=${item.id}!'", input);
    // Assess
    expect(bare).toBe(`[${input.id}]`);
    expect(doubled).toBe(`[id=${input.id}!]`);
    expect(single).toBe(`[id=${input.id}!]`);
  });

  it('any input text reaches the command exactly, in each quoting (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.oneof(SHELL_SPECIALS, fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })) }), (text) => {
        for (const template of ["printf '[%s]' ${item}", 'printf \'[%s]\' "<${item}>"', "printf '[%s]' '<${item}>'"]) {
          const wrapped = template.includes('<') ? `<${text}>` : text;
          expect(shell(template, text)).toBe(`[${wrapped}]`);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('the template itself stays shell: its own quotes, escapes and operators work as written', () => {
    expect(shell('printf \'%s|\' "a b" \\"q ${item.id} && printf done', {}, 'it-7')).toBe('a b|"q|it-7|done');
  });

  it('the input as JSON for ${item}, a field for ${item.a.b}, the item id for a missing ${item.id}', () => {
    expect(shell("printf '[%s]' ${item} ${item.a.b} ${item.id}", { a: { b: 'x y' } }, 'it-3')).toBe('[{"a":{"b":"x y"}}][x y][it-3]');
  });
});

describe('a claude step', () => {
  it('gets the filled-in text as its last argument, never through a shell', () => {
    expect(stepArgv({ type: 'claude', text: "/analyze '${item}'" }, 'claude -p', 'i-1', 'a; b')).toEqual(['claude', '-p', "/analyze 'a; b'"]);
    expect(interpolate('${item.n}', 'i-1', { n: 2 })).toBe('2');
  });
});
