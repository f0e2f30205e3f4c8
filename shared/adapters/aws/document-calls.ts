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

/** The same call answered by a client that can answer it without the command (see `ANSWER_DIRECTLY`). */
const answered = <Output>(doc: DynamoDBDocumentClient, command: new (input: never) => unknown, input: object) =>
  (doc as unknown as AnswersDirectly)[ANSWER_DIRECTLY](command, input) as Promise<Output>;

export const sendGet = (doc: DynamoDBDocumentClient, input: GetCommandInput): Promise<GetCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, GetCommand, input) : doc.send(new GetCommand(input));
export const sendPut = (doc: DynamoDBDocumentClient, input: PutCommandInput): Promise<PutCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, PutCommand, input) : doc.send(new PutCommand(input));
export const sendUpdate = (doc: DynamoDBDocumentClient, input: UpdateCommandInput): Promise<UpdateCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, UpdateCommand, input) : doc.send(new UpdateCommand(input));
export const sendQuery = (doc: DynamoDBDocumentClient, input: QueryCommandInput): Promise<QueryCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, QueryCommand, input) : doc.send(new QueryCommand(input));
export const sendBatchGet = (doc: DynamoDBDocumentClient, input: BatchGetCommandInput): Promise<BatchGetCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, BatchGetCommand, input) : doc.send(new BatchGetCommand(input));
export const sendBatchWrite = (doc: DynamoDBDocumentClient, input: BatchWriteCommandInput): Promise<BatchWriteCommandOutput> =>
  ANSWER_DIRECTLY in doc ? answered(doc, BatchWriteCommand, input) : doc.send(new BatchWriteCommand(input));
