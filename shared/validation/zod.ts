import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

// zod/mini keeps the Lambda bundles small (classic zod is about 450 KB and 26 ms to import); it
// ships without messages until a locale is configured. Import as `import * as z from '…/zod.js'`
// so the bundler keeps only what is used.
config(en());

export * from 'zod/mini';
