import type { ManagerDeps } from '../app/manager-deps.js';

/**
 * Where a handler finds its region manager. On Lambda there is one per process, built from the
 * environment (`lambda-manager.ts`); the embedded local cloud hosts several regions in one process
 * and installs a resolver that picks by the event's region.
 */
type ManagerResolver = (region: string | undefined) => Promise<ManagerDeps>;

let resolver: ManagerResolver | undefined;

export function installManagerResolver(next: ManagerResolver): void {
  resolver = next;
}

export async function managerFor(region: string | undefined): Promise<ManagerDeps> {
  if (resolver) return resolver(region);
  const { lambdaManager } = await import('./lambda-manager.js');
  return lambdaManager();
}

/** The region an API Gateway event was served for: the local cloud sets the stage variable. */
export const regionOfHttpEvent = (event: { stageVariables?: Record<string, string | undefined> }) =>
  event.stageVariables?.['region'];
