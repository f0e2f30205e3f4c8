import {
  BatchGetCommand,
  BatchWriteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  type GetCommandInput,
  type GetCommandOutput,
  type PutCommandInput,
  type PutCommandOutput,
  type QueryCommandInput,
  type QueryCommandOutput,
  type UpdateCommandInput,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/**
 * A document client that can answer a command from its class and input, without the command being
 * built. The simulator's in-memory DynamoDB is one: building a lib-dynamodb command builds two smithy
 * middleware stacks (its own and its low-level command's) that an in-memory store never runs, and
 * that was an eighth of the simulator's CPU. A real client has no such method and is sent the command.
 */
export const ANSWER_DIRECTLY = Symbol('answers a document command from its class and input');

export interface AnswersDirectly {
  [ANSWER_DIRECTLY](command: new (input: never) => unknown, input: object): Promise<unknown>;
}

type DocumentCommand<Input> = new (input: Input) => object;
type SentCommand = Parameters<DynamoDBDocumentClient['send']>[0];

/** One command's call: answered directly by a client that can (see `ANSWER_DIRECTLY`), else sent. */
const call =
  <Input extends object, Output>(command: DocumentCommand<Input>) =>
  (doc: DynamoDBDocumentClient, input: Input): Promise<Output> =>
    (ANSWER_DIRECTLY in doc
      ? (doc as unknown as AnswersDirectly)[ANSWER_DIRECTLY](command as new (input: never) => unknown, input)
      : doc.send(new command(input) as SentCommand)) as Promise<Output>;

export const sendGet = call<GetCommandInput, GetCommandOutput>(GetCommand);
export const sendPut = call<PutCommandInput, PutCommandOutput>(PutCommand);
export const sendUpdate = call<UpdateCommandInput, UpdateCommandOutput>(UpdateCommand);
export const sendQuery = call<QueryCommandInput, QueryCommandOutput>(QueryCommand);
export const sendBatchGet = call<BatchGetCommandInput, BatchGetCommandOutput>(BatchGetCommand);
export const sendBatchWrite = call<BatchWriteCommandInput, BatchWriteCommandOutput>(BatchWriteCommand);
