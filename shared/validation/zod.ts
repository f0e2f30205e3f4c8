import { config } from 'zod/mini';
import type { $ZodErrorMap } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

// zod/mini keeps the Lambda bundles small (classic zod is about 450 KB and 26 ms to import); it
// ships without messages until a locale is configured. Import as `import * as z from '…/zod.js'`
// so the bundler keeps only what is used.
config(en());

/**
 * A field left out says so: zod's own words, "Invalid input: expected number, received undefined",
 * read as a wrong value to someone who sent none. Every schema's issues (a route's `details`, a
 * pool's config, the CLI's reading of an answer) get this message; a schema's own `error` still wins.
 */
export const missingFieldMessage: $ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? `is required (expected ${issue.expected})` : undefined;
config({ customError: missingFieldMessage });

export * from 'zod/mini';
