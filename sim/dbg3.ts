import { generatePlan, DEFAULT_PLAN_OPTIONS } from './world/generate-plan.js';
import { runPlan } from './run-plan.js';
import type { FaultKind } from './world/plan.js';
const faults = (process.argv[2] ?? '').split(',') as FaultKind[];
const inv: Record<string, number[]> = {}; const t0 = performance.now(); let steps = 0;
const n = Number(process.argv[3] ?? 100);
for (let s = 1; s <= n; s++) { const r = await runPlan(generatePlan(s, { ...DEFAULT_PLAN_OPTIONS, faults })); steps += r.steps; for (const v of r.violations) (inv[v.invariant] ??= []).push(s); }
console.log(faults.join(','), ((performance.now() - t0) / n).toFixed(0), 'ms/seed', (steps / n).toFixed(0), 'steps', JSON.stringify(Object.fromEntries(Object.entries(inv).map(([k, v]) => [k, `${v.length}: ${v.slice(0, 5).join(' ')}`]))));
