import type { GateDeps } from '../app/gate/gate-deps.js';

type GateResolver = () => Promise<GateDeps>;
let resolver: GateResolver | undefined;

/** The local cloud installs its gate; on Lambda the gate is built from the environment. */
export function installGateResolver(next: GateResolver): void {
  resolver = next;
}

export async function gate(): Promise<GateDeps> {
  if (resolver) return resolver();
  const { lambdaGate } = await import('./lambda-gate.js');
  return lambdaGate();
}
