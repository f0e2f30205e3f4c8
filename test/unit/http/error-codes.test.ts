import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EventPublishError } from '../../../shared/adapters/aws/eventbridge-bus.js';
import { errorResponse, statusByCode } from '../../../shared/http/error-response.js';

/** Every typed error code the server side declares (`readonly code = '…'`); the SDK's are the client's own. */
function declaredCodes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !join(entry.parentPath, entry.name).includes(join('shared', 'sdk')))
    .flatMap((entry) => [...readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/readonly code = '([a-z_]+)'/g)].map((match) => match[1] ?? ''));
}

// AWS adapters review (noticed): a code missing from the table answered 400, a caller's mistake, for
// what was the server's (an EventBridge publish that kept failing).
describe('error codes to HTTP', () => {
  it('every error code the server declares has its status in the one table', () => {
    const unmapped = [...new Set(declaredCodes(join(import.meta.dirname, '../../../shared')))].filter((code) => !(code in statusByCode));
    expect(unmapped).toEqual([]);
  });

  it('a publish that kept failing is a 503 to retry, not the caller\'s 400', () => {
    expect(errorResponse(new EventPublishError('EventBridge refused 2 events')).statusCode).toBe(503);
  });
});
