import type { IncomingMessage } from 'node:http';

/** Lambda's request limit (`LAMBDA_REQUEST_BYTES`): a longer body cannot reach a function on AWS, whatever it is. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

/** Past this the connection is dropped: a body this size is not a client waiting for its 413. */
const DROP_CONNECTION_BYTES = 8 * MAX_BODY_BYTES;

/**
 * The whole request body as text; rejects past `MAX_BODY_BYTES`. The rest of an oversized body is
 * read and discarded, so a client that sends its whole body before reading the answer gets the 413
 * instead of a reset connection.
 */
export function readRequestBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > DROP_CONNECTION_BYTES) request.destroy();
      else if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on('end', () => (size > MAX_BODY_BYTES ? reject(new Error('body too large')) : resolve(Buffer.concat(chunks).toString('utf8'))));
    request.on('error', reject);
    request.on('close', () => reject(new Error('connection closed before the body ended')));
  });
}
