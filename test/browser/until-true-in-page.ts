import type { Page } from 'playwright-core';
import { pollUntil } from '../support/poll.js';

/**
 * Resolves once `expression` is true in the page, polling until `timeoutMs`. Not
 * `page.waitForFunction(string)`: it evals the string again on each poll, which the console page's
 * policy (no 'unsafe-eval') refuses; one `page.evaluate` per poll is allowed.
 */
export async function untilTrueInPage(page: Page, expression: string, timeoutMs = 30_000, intervalMs = 50): Promise<void> {
  await pollUntil(async () => ((await page.evaluate(`Boolean(${expression})`)) === true ? true : undefined), { what: expression, timeoutMs, intervalMs });
}
