import { pollingDesign, stepFunctionsPerJob, stepFunctionsPoolPerItem, temporalPerJob, temporalPoolPerItem } from './alternatives.js';
import { resolvePoolConfig } from '../../domain/pools/pool-config.js';
import { agentHeartbeatMs, measurePool, POOL_HEARTBEAT_LEVERS_SECS, POOL_WORKLOAD, worstGraceLeftMs, type PoolWorkload } from './pool-workload.js';
import { fixedUsdPerStackMonth, HOURS_PER_MONTH } from './prices.js';
import { combine, priceOf, scale, type Usage } from './usage.js';
import { measureVigil, type VigilMeasurement } from './vigil-usage.js';
import type { Workload } from './workload.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const WORKLOADS: Workload[] = [
  { name: '1 region, 10 wf, 1 min, progress 10 s', regions: 1, workflows: 10, durationMs: MINUTE, progressEveryMs: 10_000 },
  { name: '1 region, 10 wf, 1 h, progress 10 s', regions: 1, workflows: 10, durationMs: HOUR, progressEveryMs: 10_000 },
  { name: '3 regions, 10 wf, 1 min, progress 10 s', regions: 3, workflows: 10, durationMs: MINUTE, progressEveryMs: 10_000 },
  { name: '3 regions, 10 wf, 1 h, progress 10 s', regions: 3, workflows: 10, durationMs: HOUR, progressEveryMs: 10_000 },
  { name: '1 region, 4 wf, 15 min, progress 60 s (README cost sketch)', regions: 1, workflows: 4, durationMs: 15 * MINUTE, progressEveryMs: 60_000 },
];

const usd = (value: number) => (value >= 0.01 ? `$${value.toFixed(4)}` : `$${value.toExponential(2)}`);
const pad = (text: string, width: number) => text.padEnd(width);

/** A 24 h job is the 1 h job's per-hour usage continued: usage grows linearly with job time (fit on 1 min and 1 h). */
function extrapolate(short: { m: VigilMeasurement; ms: number }, long: { m: VigilMeasurement; ms: number }, targetMs: number): Usage {
  const perMs = scale(combine(long.m.perJob, short.m.perJob, -1), 1 / (long.ms - short.ms));
  return combine(long.m.perJob, perMs, targetMs - long.ms);
}

/** Prints the side-by-side cost per job, the growth with jobs and with duration, and the levers. */
export async function printCostReport(log: (line: string) => void = console.log): Promise<void> {
  log('Cost per job, us-east-1 list prices (shared/simulation/cost/prices.ts), Vigil measured in the simulator');
  log(`${pad('workload', 62)} ${pad('Vigil', 11)} ${pad('seeds’ polling', 15)} ${pad('SFN Standard', 13)} Temporal Cloud`);
  const measured = new Map<string, VigilMeasurement>();
  for (const workload of WORKLOADS) {
    const vigil = await measureVigil(workload);
    measured.set(workload.name, vigil);
    const polling = pollingDesign(workload);
    log(
      `${pad(workload.name, 62)} ${pad(usd(priceOf(vigil.perJob).total), 11)} ${pad(usd(priceOf(polling.perJob).total), 15)} ` +
        `${pad(usd(stepFunctionsPerJob(workload).usd), 13)} ${usd(temporalPerJob(workload).usd)}`,
    );
  }

  log('\nVigil per job, by kind (counted by the simulator)');
  for (const workload of WORKLOADS) {
    const vigil = measured.get(workload.name);
    if (!vigil) continue;
    const u = vigil.perJob;
    const c = priceOf(u);
    log(
      `${pad(workload.name, 62)} λ ${u.lambdaInvocations.toFixed(0)} (${usd(c.lambda)}), WRU ${u.dynamoWriteUnits.toFixed(0)} (${usd(c.dynamoWrites)}; history and jobs list ${u.dynamoViewWriteUnits.toFixed(0)}), ` +
        `RRU ${u.dynamoReadUnits.toFixed(0)} (${usd(c.dynamoReads)}), SQS ${u.sqsRequests.toFixed(0)}, Scheduler ${u.schedulerInvocations.toFixed(0)}, ` +
        `events ${u.eventBridgeEvents.toFixed(0)} (${u.forwardedEvents.toFixed(0)} forwarded), API ${(u.apiRequestsWorker + u.apiRequestsClient).toFixed(0)} (${usd(c.apiGateway)}), logs and traces ${usd(c.observability)}; ` +
        `${(u.dynamoWriteUnits / vigil.reportsPerJob).toFixed(2)} WRU per report`,
    );
  }

  const oneHour = WORKLOADS[1];
  const oneMinute = WORKLOADS[0];
  const hourM = oneHour && measured.get(oneHour.name);
  const minuteM = oneMinute && measured.get(oneMinute.name);
  if (oneHour && oneMinute && hourM && minuteM) {
    log(`\nGrowth with job duration (${oneHour.regions} region, ${oneHour.workflows} wf, progress 10 s; 24 h extrapolated linearly from 1 min and 1 h)`);
    for (const [label, ms] of [['1 min', MINUTE], ['1 h', HOUR], ['24 h', 24 * HOUR]] as const) {
      const usage = ms === MINUTE ? minuteM.perJob : ms === HOUR ? hourM.perJob : extrapolate({ m: minuteM, ms: MINUTE }, { m: hourM, ms: HOUR }, ms);
      const workload = { ...oneHour, durationMs: ms };
      log(
        `  ${pad(label, 6)} Vigil ${pad(usd(priceOf(usage).total), 10)} polling ${pad(usd(priceOf(pollingDesign(workload).perJob).total), 10)} ` +
          `SFN ${pad(usd(stepFunctionsPerJob(workload).usd), 10)} Temporal ${usd(temporalPerJob(workload).usd)}`,
      );
    }
    // Every deployment has the gate stack beside its regions; both designs would pay for the same stacks.
    const stacksPerHour = (oneHour.regions * fixedUsdPerStackMonth('region') + fixedUsdPerStackMonth('gate')) / HOURS_PER_MONTH;
    log(
      `\nGrowth with the number of concurrent 1 h jobs (cost per job; the sweeps or loops and the stacks' fixed ${usd(fixedUsdPerStackMonth('region'))}/month a region, ` +
        `${usd(fixedUsdPerStackMonth('gate'))} the gate, shared; per-job usage scaled linearly from 2 simulated jobs)`,
    );
    const polling = pollingDesign(oneHour);
    for (const jobs of [10, 100, 1_000, 10_000, 100_000]) {
      const vigil = priceOf(hourM.perJob).total + (priceOf(hourM.idlePerHour).total + stacksPerHour) / jobs;
      const seeds = priceOf(polling.perJob).total + (priceOf(polling.fixedPerHour).total + stacksPerHour) / jobs;
      log(`  ${pad(String(jobs), 7)} Vigil ${pad(usd(vigil), 10)} polling ${pad(usd(seeds), 10)} SFN ${pad(usd(stepFunctionsPerJob(oneHour).usd), 10)} Temporal ${usd(temporalPerJob(oneHour).usd)}`);
    }
  }

  const paper = WORKLOADS[4];
  const paperM = paper && measured.get(paper.name);
  if (paper && paperM) {
    const now = priceOf(paperM.perJob);
    const sfn = stepFunctionsPerJob(paper).usd;
    const ratio = (value: number) => `${(value / sfn).toFixed(2)}× Step Functions`;
    log(`\nDeploy options on ${paper.name}, Step Functions Standard: ${usd(sfn)} per job`);
    log(`  cdk.json defaults                                  ${usd(now.total)} ${ratio(now.total)} (API Gateway ${usd(now.apiGateway)}, DynamoDB writes ${usd(now.dynamoWrites)})`);
    for (const [label, profile] of [
      ['-c workerFunctionUrl=true (workers call the URL)', { workerFunctionUrl: true }],
      ['-c systemLogLevel=INFO (START and REPORT records)', { platformLogs: true }],
      ['-c tracing=true (X-Ray, at least)', { tracing: true }],
      ['worker URL and tracing', { workerFunctionUrl: true, tracing: true }],
    ] as const) {
      const total = priceOf(paperM.perJob, profile).total;
      log(`  ${pad(label, 50)} ${usd(total)} ${ratio(total)}`);
    }
  }

  await printPoolCost(log);
}

/**
 * The agent pool workload: Vigil measured in the simulator per item, its agents beating as the
 * shipped SDK does by default (at the cadence the claim answers) and at each `--heartbeat` lever, beside the alternatives' formulas (alternatives.ts).
 */
async function printPoolCost(log: (line: string) => void): Promise<void> {
  const workload = POOL_WORKLOAD;
  const vigil = await measurePool(workload);
  const u = vigil.perItem;
  const c = priceOf(u);
  const sfn = stepFunctionsPoolPerItem(workload);
  const temporal = temporalPoolPerItem(workload);
  const grace = (w: PoolWorkload) => `${worstGraceLeftMs(w) / 1000} s of the ${resolvePoolConfig(w.config).timeout_config.cleanup_grace_period_secs} s cleanup grace left at worst`;
  log(`\nAgent pool: ${workload.name}; per item (× ${workload.items.toLocaleString('en-US')} for the pool)`);
  log(
    `  Vigil, heartbeat ${agentHeartbeatMs(workload) / 1000} s (the pool's cadence from the claim: the SDK's and vigil run's default) ${pad(usd(c.total), 10)} pool ${pad(usd(c.total * workload.items), 9)} ` +
      `λ ${u.lambdaInvocations.toFixed(1)}, WRU ${u.dynamoWriteUnits.toFixed(1)} (${usd(c.dynamoWrites)}), RRU ${u.dynamoReadUnits.toFixed(1)} (${usd(c.dynamoReads)}), ` +
      `SQS ${u.sqsRequests.toFixed(1)}, events ${u.eventBridgeEvents.toFixed(1)}, API ${(u.apiRequestsWorker + u.apiRequestsClient).toFixed(1)} (${usd(c.apiGateway)}); ` +
      `${vigil.agentCallsPerItem.toFixed(1)} agent calls, ${vigil.checkpointsPerItem.toFixed(1)} checkpoints per item; ${grace(workload)}`,
  );
  log(
    `    -c workerFunctionUrl=true ${usd(priceOf(u, { workerFunctionUrl: true }).total)} per item; -c systemLogLevel=INFO ${usd(priceOf(u, { platformLogs: true }).total)}; ` +
      `-c tracing=true ${usd(priceOf(u, { tracing: true }).total)}`,
  );
  for (const seconds of POOL_HEARTBEAT_LEVERS_SECS) {
    const lever = { ...workload, heartbeatIntervalMs: seconds * 1000 };
    const measured = await measurePool(lever);
    const total = priceOf(measured.perItem).total;
    log(
      `  Vigil, --heartbeat ${pad(String(seconds), 3)} ${pad(usd(total), 10)} pool ${pad(usd(total * workload.items), 9)} ${(total / c.total).toFixed(2)}× the default; ` +
        `worker URL ${usd(priceOf(measured.perItem, { workerFunctionUrl: true }).total)}; ${measured.agentCallsPerItem.toFixed(1)} agent calls per item; ` +
        `a pool's cancel or fail, a stall or a checkpoint collection heard up to ${seconds} s late: ${grace(lever)}`,
    );
  }
  log(`  SFN Standard    ${pad(usd(sfn.usd), 10)} pool ${pad(usd(sfn.usd * workload.items), 9)} ${sfn.transitions.toFixed(2)} transitions per item (3 + items × (commands + 1) × attempts)`);
  log(`  Temporal Cloud  ${pad(usd(temporal.usd), 10)} pool ${pad(usd(temporal.usd * workload.items), 9)} ${temporal.actions.toFixed(2)} actions per item (1 + items × commands × (1 + recorded heartbeats))`);
}
