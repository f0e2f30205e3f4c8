import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { submit, useTestManager } from './support/test-manager.js';

const LOSE_ANSWER = 'vigil-test-lose-next-job-write-answer';

/**
 * The next PutItem of a job item is applied, then its answer is lost and the SDK sends it again, as
 * the DynamoDB client's own retry does after a timeout, a reset connection or a 500: the repeat
 * fails its condition (the first try already moved the version). Returns the undo.
 */
function loseNextJobWriteAnswer(doc: DynamoDBDocumentClient): () => void {
  let armed = true;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const item = (args.input as { Item?: { sk?: { S?: string } } }).Item;
      if (!armed || context.commandName !== 'PutItemCommand' || item?.sk?.S !== 'JOB') return result;
      armed = false;
      return next(args);
    },
    { step: 'build', name: LOSE_ANSWER },
  );
  return () => doc.middlewareStack.remove(LOSE_ANSWER);
}

// Review findings: a decision whose write landed but whose answer was lost was taken for someone
// else's write and decided again: a takeover raised the fence token by two and published two
// transfers; a cancel answered 409 for the change it had made itself.
describe('a write whose answer was lost is not decided twice (dynalite, the SDK repeating the write)', () => {
  const m = useTestManager();
  const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

  it('a takeover raises the fence token by exactly one (contract: → n+1)', async () => {
    // Prepare
    await submit(m, body);
    const undo = loseNextJobWriteAnswer(m.doc);
    // Act
    const answer = await takeOverJob(m.deps, 'job-1').finally(undo);
    // Assess
    expect(answer.fenceToken).toBe(2);
    expect((await m.getJob('job-1')).tracking.fenceToken).toBe(2);
  });

  it('a cancel answers CANCELLED, not 409 for its own change', async () => {
    // Prepare
    await submit(m, body);
    const undo = loseNextJobWriteAnswer(m.doc);
    // Act
    const answer = await cancelJob(m.deps, 'job-1', undefined).finally(undo);
    // Assess
    expect(answer).toEqual({ jobId: 'job-1', status: 'CANCELLED' });
    expect((await m.getJob('job-1')).status).toBe('CANCELLED');
  });
});
