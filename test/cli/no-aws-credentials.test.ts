import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// A real `vigil` process (tsx compiles on start).
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that `vigil` against a deployed API (SigV4-signed) with no AWS credentials says so at once,
 * exit 2, naming the fix. The signer's failure was taken for a network error: five tries, then exit
 * 4 "Vigil … did not answer … Is it running?", though nothing was ever sent.
 */
describe('vigil against API Gateway without AWS credentials', () => {
  const vigil = useFakeVigil();

  it('exits 2 at once, naming the missing credentials and how to give them', async () => {
    // Prepare: an environment with no credentials anywhere the default chain looks
    const empty = join(vigil.scratch(), 'empty');
    writeFileSync(empty, '');
    const noCredentials = {
      AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '', AWS_PROFILE: '', AWS_DEFAULT_PROFILE: '',
      AWS_CONFIG_FILE: empty, AWS_SHARED_CREDENTIALS_FILE: empty, AWS_EC2_METADATA_DISABLED: 'true',
      AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '', AWS_CONTAINER_CREDENTIALS_FULL_URI: '', AWS_WEB_IDENTITY_TOKEN_FILE: '', AWS_ROLE_ARN: '',
    };
    const startedAt = Date.now();
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', 'https://abc1234567.execute-api.us-east-1.amazonaws.com'], { env: noCredentials });
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('GET /jobs/job-1 was not sent');
    expect(result.stderr, result.transcript).toMatch(/AWS credentials/);
    expect(result.stderr, result.transcript).toContain('AWS_PROFILE');
    expect(result.stderr, result.transcript).toContain('aws sso login');
    expect(result.stderr, result.transcript).toContain('AWS_ACCESS_KEY_ID');
    expect(result.stderr, result.transcript).not.toContain('Is it running?');
    // Five tries with back-off took seconds; the command starts in well under this.
    expect(Date.now() - startedAt).toBeLessThan(15_000);
  });
});
