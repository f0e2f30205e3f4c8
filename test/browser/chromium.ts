import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** Screenshots land here (gitignored): the closing note points at them. */
export const SCREENSHOTS_DIR = join(process.cwd(), 'test-results');

/**
 * Whether the browser tests can run. Missing under CI is an error (CI installs Debian's chromium);
 * elsewhere the suite reports itself skipped with the reason, never silently.
 */
export function chromiumAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI'] === 'true') throw new Error(`${CHROMIUM} is missing under CI: .ci/run installs it with apt-get install -y chromium.`);
  console.warn(`browser tests skipped: ${CHROMIUM} is missing. Install it with: apt-get install -y chromium`);
  return false;
}

export function launchChromium(): Promise<Browser> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
