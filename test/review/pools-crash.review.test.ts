import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { submit, tokenOf, useTestManager } from '../app/support/test-manager.js';

const LOSE_ANSWER = 'review-lose-next-write-answer';

/** As in test/app/lost-write-answers.test.ts: the next matching write is applied, its answer lost, and the SDK sends it again. */
function loseNextAnswer(doc: DynamoDBDocumentClient, command: 'PutItemCommand' | 'UpdateItemCommand', sk: string): () => void {
  let armed = true;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as { Item?: { sk?: { S?: string } }; Key?: { sk?: { S?: string } } };
      if (!armed || context.commandName !== command || (input.Item ?? input.Key)?.sk?.S !== sk) return result;
      armed = false;
      return next(args);
    },
    { step: 'build', name: LOSE_ANSWER },
  );
  return () => doc.middlewareStack.remove(LOSE_ANSWER);
}

describe('review: a create whose answer was lost is recognised too', () => {
  const m = useTestManager();
  const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

  it("a worker's first extension (its item created by the grant) answers granted when the create's answer was lost", async () => {
    // Prepare: no report yet, so the worker has no item: the grant's budget write creates it
    const submitted = await submit(m, body);
    const undo = loseNextAnswer(m.doc, 'PutItemCommand', 'WORKER');
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.2 }).finally(undo);
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
  });

  it("a job's first submit whose create answer was lost answers created (201) and arms the job's timer", async () => {
    // Prepare
    const undo = loseNextAnswer(m.doc, 'PutItemCommand', 'JOB');
    // Act
    const answer = await submitJob(m.deps, body).finally(undo);
    // Assess
    expect(answer.created).toBe(true);
    expect(m.timers.armed('job-1')).not.toHaveLength(0);
  });
});
