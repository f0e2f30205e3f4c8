import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const LOSE_ANSWER = 'vigil-test-lose-next-write-answer';

/**
 * The next `command` on an item of sort key `sk` is applied, then its answer is lost and the SDK
 * sends it again, as the DynamoDB client's own retry does after a timeout, a reset connection or a
 * 500: the repeat fails its condition (the first try already moved the version). Returns the undo.
 */
export function loseNextAnswer(doc: DynamoDBDocumentClient, command: 'PutItemCommand' | 'UpdateItemCommand', sk: string): () => void {
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
