import { printCostReport } from './report.js';

/** `npm run cost`: the cost model (also part of `npm run bench`). */
await printCostReport();
