import type { IncomingMessage } from 'node:http';

/** API Gateway's payload limit. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

/** The whole request body as text; rejects (and drops the connection) past `MAX_BODY_BYTES`. */
export function readRequestBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}
