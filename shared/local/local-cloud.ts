import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { GATE } from '../adapters/local/event-routes.js';
import { LocalEventNetwork, type DeliveryFailure } from '../adapters/local/local-event-network.js';
import { UnknownRegionError } from '../domain/errors.js';
import { defaultTimeoutPolicy } from '../domain/policy.js';
import type { Scheduler } from '../ports/scheduler.js';
import type { TimerRequest } from '../ports/timers.js';
import { logger } from '../telemetry/powertools.js';
import { installManagerResolver } from '../wiring/manager-resolver.js';
import type { LocalCloudFlags } from './cli-flags.js';
import { consoleRoutes, plainForwarder } from '../console/console-routes.js';
import { startHttpListener } from './http-listener.js';
import { localClock, type LocalClock } from './local-clock.js';
import { localGateReportIntervalSeconds } from './gate-report-interval.js';
import { localControlRoutes } from './local-control-routes.js';
import { LocalMetrics } from './local-metrics.js';
import { startLocalRegion, type LocalRegion } from './local-region.js';
import { managerRoutes } from './manager-routes.js';
import { gateRoutes, startLocalGate, type LocalGate } from './local-gate.js';
import { lockDataDir } from './data-dir-lock.js';
import { loadHandlerModules } from './handler-modules.js';

/**
 * What the deployed system makes of a consumer that fails: the function's error in its log (alarmed)
 * at each attempt, and the event in the consumer's alarmed DLQ after the last. The local network
 * drops it then, so the line at `givenUp` is the only trace of the loss.
 */
function logDeliveryFailure({ origin, target, event, attempt, error, givenUp }: DeliveryFailure): void {
  const attributes = { from: origin, to: target, detailType: event['detail-type'], jobId: event.detail['jobId'], attempt, error: String(error) };
  if (givenUp) logger.error('event dropped: its consumer failed on every delivery (deployed, it would be in the DLQ)', attributes);
  else logger.warn('event consumer failed; the delivery is retried', attributes);
}

const gateDownAnswer = {
  statusCode: 503,
  body: { error: { code: 'upstream_unavailable', message: 'The gate is down (fault injected). Retry later, or talk to a region directly.' } },
};

/**
 * The deployed backstop sweep runs once a minute (infra/constructs/backstop-sweep.ts). On the virtual
 * clock the local cloud keeps that cadence: every sweep an advance crosses costs real time, and
 * nothing but a lost wake-up needs one. On the system clock it sweeps every second, for a brisk demo.
 */
const DEPLOYED_SWEEP_INTERVAL_MS = 60_000;

export interface LocalCloudOptions extends LocalCloudFlags {
  /** The time source; a `VirtualClock` here is advanced by the caller (and by `POST /_local/clock/advance`). */
  clock?: Scheduler;
  /** How often each region and the gate sweep their timer index (the backstop): 1 s, or 60 s on the virtual clock. */
  sweepIntervalMs?: number;
  onTimerFired?: (timer: TimerRequest, firedAt: number) => void;
  /**
   * Test knobs with no CLI flag, so integration tests and benchmarks run in seconds: how often a
   * gate-coordinated manager reports progress and re-sends a pending timeout report (policy, 10 s),
   * how often the gate re-sends a decision to regions without a final status (10 s), and the AD-26
   * base grant of an extension (30 s).
   */
  gateReportIntervalSeconds?: number;
  rebroadcastSeconds?: number;
  extensionBaseSeconds?: number;
}

export interface LocalCloud {
  endpoints: { gate: string; regions: Record<string, string> };
  regions: Map<string, LocalRegion>;
  gate: LocalGate;
  network: LocalEventNetwork;
  metrics: LocalMetrics;
  clock: LocalClock;
  close(): Promise<void>;
}

/**
 * The whole system in one process: the gate and one manager per region, each with its own
 * dynalite on disk under `dataDir`, joined by the local event network. A restart with the same
 * `dataDir` resumes every job and timer.
 */
export async function startLocalCloud(options: LocalCloudOptions): Promise<LocalCloud> {
  mkdirSync(options.dataDir, { recursive: true });
  const lock = lockDataDir(options.dataDir);
  // A data dir whose time would go back is refused before anything of it changes (local-clock.ts).
  let time: LocalClock;
  try {
    time = localClock(options);
  } catch (error) {
    lock.release();
    throw error;
  }
  // The previous run's map must not be read for this one's until every listener accepts connections.
  const endpointsFile = join(options.dataDir, 'endpoints.json');
  rmSync(endpointsFile, { force: true });
  // Compiled while the stores start; awaited before any listener answers (see handler-modules.ts).
  const handlersLoaded = loadHandlerModules();
  handlersLoaded.catch(() => undefined);
  const clock = time.scheduler;
  const network = new LocalEventNetwork(Math.random, { scheduler: clock, onDeliveryFailed: logDeliveryFailure });
  const metrics = new LocalMetrics();
  const gateReportIntervalSeconds = localGateReportIntervalSeconds(options.gateStuckThresholdSeconds, options.gateReportIntervalSeconds);
  const policy = {
    ...defaultTimeoutPolicy,
    defaultStuckThresholdSeconds: options.stuckThresholdSeconds,
    gateFallbackSeconds: options.gateFallbackSeconds,
    gateReportIntervalSeconds,
    extensions: { ...defaultTimeoutPolicy.extensions, baseSeconds: options.extensionBaseSeconds ?? defaultTimeoutPolicy.extensions.baseSeconds },
  };

  const regions = new Map<string, LocalRegion>();
  for (const region of options.regions) {
    const common = { region, dataDir: options.dataDir, policy, clock, network, metrics };
    regions.set(region, await startLocalRegion(options.onTimerFired ? { ...common, onTimerFired: options.onTimerFired } : common));
  }
  installManagerResolver(async (region) => {
    const found = region === undefined ? undefined : regions.get(region);
    if (!found) throw new UnknownRegionError(`No region manager '${region}' in this local cloud; it runs ${[...regions.keys()].join(', ')}.`);
    return found.deps;
  });
  const gate = await startLocalGate({
    dataDir: options.dataDir,
    regions: options.regions,
    // The gate is deployed in one of the regions; locally, as by default on AWS, in the first.
    gateRegion: options.regions[0] ?? 'us-east-1',
    clock,
    network,
    metrics,
    gateStuckThresholdSeconds: options.gateStuckThresholdSeconds,
    gateReportIntervalSeconds,
    ...(options.rebroadcastSeconds !== undefined ? { rebroadcastSeconds: options.rebroadcastSeconds } : {}),
  });
  // Only now that every node hears its events may a wake-up from the previous run fire.
  for (const node of [...regions.values(), gate]) await node.resume();

  await handlersLoaded;
  const control = localControlRoutes(network, metrics, time);
  const servers: Server[] = [];
  const regionUrls: Record<string, string> = {};
  let gateUrl = '';
  const gateListener = await startHttpListener({
    name: GATE,
    port: options.port,
    routes: gateRoutes,
    now: () => clock.now(),
    extra: async (method, path, body) => (await control(method, path, body)) ?? (network.faults.gateDown ? gateDownAnswer : undefined),
    // The console is served by the process, not by the gate: it stays up to show a gate outage.
    raw: consoleRoutes({ targets: () => ({ gate: gateUrl, regions: regionUrls }), forward: plainForwarder, faults: true }),
  });
  gateUrl = gateListener.url;
  servers.push(gateListener.server);
  for (const [index, region] of options.regions.entries()) {
    const port = options.port === 0 ? 0 : options.port + 1 + index;
    const listener = await startHttpListener({ name: region, port, routes: managerRoutes, extra: control, now: () => clock.now() });
    servers.push(listener.server);
    regionUrls[region] = listener.url;
  }
  const endpoints = { gate: gateListener.url, regions: regionUrls };
  writeFileSync(`${endpointsFile}.tmp`, JSON.stringify(endpoints, null, 2));
  renameSync(`${endpointsFile}.tmp`, endpointsFile);

  const sweepEvery = options.sweepIntervalMs ?? (time.virtual ? DEPLOYED_SWEEP_INTERVAL_MS : 1_000);
  // Every node sweeps at once; the next round is scheduled first so a slow sweep never delays it.
  let withdrawSweep = () => {};
  const sweepRound = (): Promise<unknown> => {
    withdrawSweep = clock.schedule(clock.now() + sweepEvery, sweepRound);
    return Promise.all([...[...regions.values()].map((region) => region.sweep()), gate.sweep()].map((swept) => swept.catch(() => undefined)));
  };
  withdrawSweep = clock.schedule(clock.now() + sweepEvery, sweepRound);

  return {
    endpoints,
    regions,
    gate,
    network,
    metrics,
    clock: time,
    close: async () => {
      // Stop every source of new work first; each store then lets the calls still running end.
      withdrawSweep();
      network.close();
      gate.timers.stop();
      for (const region of regions.values()) region.timers.stop();
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })));
      await Promise.all([gate.close(), ...[...regions.values()].map((region) => region.close())]);
      rmSync(endpointsFile, { force: true });
      lock.release();
    },
  };
}
