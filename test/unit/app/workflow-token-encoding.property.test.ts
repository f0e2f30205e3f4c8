import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attemptTokens } from '../../../shared/app/pools/attempt-tokens.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import { InvalidTokenError } from '../../../shared/domain/errors.js';

const tokens = new WorkflowTokens(Buffer.from('region-key-0123456789abcdef'));

/** Ids as the contract takes them: 1–128 characters of `[A-Za-z0-9._:-]`. */
const id = fc.stringMatching(/^[A-Za-z0-9._:-]{1,24}$/);
/** A tenant: an IAM principal's ARN (printable ASCII without spaces), or absent (the default tenant). */
const tenant = fc.option(fc.stringMatching(/^[!-~]{1,40}$/), { nil: undefined });
const incarnation = fc.stringMatching(/^[A-Za-z0-9_-]{12}$/);
const claim = fc.record({ jobId: id, workflowId: id, workerId: id, incarnation, tenant });
type Claim = { jobId: string; workflowId: string; workerId: string; incarnation: string; tenant: string | undefined };

const signed = (c: Claim) => tokens.sign(c.jobId, c.workflowId, c.workerId, c.incarnation, c.tenant);
const verdict = (token: string, c: Claim) =>
  tokens.verify(token, c.workerId, { jobId: c.jobId, workflowId: c.workflowId }).then(
    (verified) => verified,
    (error: unknown) => error,
  );

/** Text a base64url decoder skips or reads the same as what it stands next to: padding, spaces, the other alphabet, junk. */
const insertion = fc.constantFrom('=', '==', ' ', '!', '*', '+', '/', '%', '~');

describe('worker token text', () => {
  it('a token verifies only as the exact text it was issued as: a character inserted anywhere is refused', async () => {
    await fc.assert(
      fc.asyncProperty(claim, insertion, fc.nat(), async (c, inserted, at) => {
        // Prepare
        const token = signed(c);
        const position = at % (token.length + 1);
        const changed = token.slice(0, position) + inserted + token.slice(position);
        // Act
        const answer = await verdict(changed, c);
        // Assess
        expect(answer).toBeInstanceOf(InvalidTokenError);
      }),
      { numRuns: 500 },
    );
  });

  it('a field spelled another way that decodes the same (trailing bits, padding) is refused', async () => {
    // Prepare: `am9iLTE` is base64url for `job-1`; `am9iLTF` differs only in bits the decoder drops
    const c: Claim = { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', incarnation: 'inc-0123456789', tenant: undefined };
    const token = signed(c);
    expect(token.startsWith('am9iLTE.')).toBe(true);
    // Act
    const answers = await Promise.all([verdict(token.replace('am9iLTE.', 'am9iLTF.'), c), verdict(token.replace('am9iLTE.', 'am9iLTE=.'), c)]);
    // Assess
    expect(answers.every((answer) => answer instanceof InvalidTokenError)).toBe(true);
  });

  it('a token never verifies for a claim that differs in any field, however the ids split (`a:b`/`c` against `a`/`b:c`)', async () => {
    await fc.assert(
      fc.asyncProperty(claim, claim, async (issued, asked) => {
        fc.pre(JSON.stringify(issued) !== JSON.stringify(asked));
        // Prepare
        const token = signed(issued);
        // Act
        const answer = await verdict(token, asked);
        // Assess: only a claim with the same ids, incarnation and tenant may get through
        if (!(answer instanceof InvalidTokenError)) {
          expect(answer).toMatchObject({ jobId: issued.jobId, workflowId: issued.workflowId, incarnation: issued.incarnation });
          expect(asked).toMatchObject({ jobId: issued.jobId, workflowId: issued.workflowId, workerId: issued.workerId });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('an attempt token with a character inserted anywhere is refused', async () => {
    await fc.assert(
      fc.asyncProperty(id, id, fc.integer({ min: 1, max: 1000 }), insertion, fc.nat(), async (poolId, itemId, attempt, inserted, at) => {
        // Prepare
        const attempts = attemptTokens(tokens);
        const token = attempts.sign(poolId, itemId, attempt);
        const position = at % (token.length + 1);
        // Act
        const answer = await attempts.verify(token.slice(0, position) + inserted + token.slice(position), poolId, itemId, attempt).catch((error: unknown) => error);
        // Assess
        expect(answer).toBeInstanceOf(InvalidTokenError);
      }),
      { numRuns: 300 },
    );
  });
});
