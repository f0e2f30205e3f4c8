import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { GATE } from '../adapters/local/event-routes.js';

/**
 * The regions whose DynamoDB the data dir holds but `--regions` leaves out. Started without them, the
 * local cloud would run none of their accepted jobs: no wake-up, no sweep, no route, and the gate's
 * decisions for them would have no consumer.
 */
export function regionsLeftOut(dataDir: string, regions: readonly string[]): string[] {
  const stored = join(dataDir, 'dynamodb');
  if (!existsSync(stored)) return [];
  return readdirSync(stored, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== GATE && !regions.includes(entry.name))
    .map((entry) => entry.name)
    .sort();
}

export const leftOutMessage = (dataDir: string, regions: readonly string[], leftOut: readonly string[]): string =>
  `The data dir '${dataDir}' holds the jobs of ${leftOut.join(', ')}, which --regions ${regions.join(',')} leaves out: ` +
  `its running jobs would never be woken or timed out. Pass --regions ${[...regions, ...leftOut].join(',')}, ` +
  `or delete ${leftOut.map((region) => join(dataDir, 'dynamodb', region)).join(' and ')} to drop those jobs, or use another --data-dir.`;
