import './quiet-logs.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { VirtualClock } from '../../../shared/adapters/local/virtual-clock.js';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../../../shared/local/local-cloud.js';
import { GateClient, submitGateJob, type GateJobHandle, type GateJobRequest, type RegionWorker } from '../../support/gate-client.js';
import { ok, VigilClient, type JobView } from '../../support/vigil-client.js';

export const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
export type Region = (typeof REGIONS)[number];

/**
 * The whole local cloud in this test process, on free loopback ports and a fresh temp data dir (with
 * `virtualClock: true`, on a virtual clock the test advances: `clock`, `passTime`), with second-scale knobs: managers report to the gate every second and the gate re-sends a decision every
 * second (both 10 s in production). Only one per process at a time: the cloud installs the handlers'
 * process-wide resolvers.
 */
export interface GateCloud {
  cloud: LocalCloud;
  gate: GateClient;
  region(name: Region): VigilClient;
  /** The cloud's virtual clock; throws unless it was started with `virtualClock: true`. */
  readonly clock: VirtualClock;
  close(): Promise<void>;
}

export type GateCloudOptions = Partial<Omit<LocalCloudOptions, 'dataDir' | 'port' | 'regions'>>;

export async function startGateCloud(options: GateCloudOptions = {}): Promise<GateCloud> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-gate-it-'));
  let cloud: LocalCloud;
  try {
    cloud = await startLocalCloud({
      port: 0,
      regions: [...REGIONS],
      dataDir,
      stuckThresholdSeconds: 60,
      gateFallbackSeconds: 60,
      gateStuckThresholdSeconds: 180,
      gateReportIntervalSeconds: 1,
      rebroadcastSeconds: 1,
      ...options,
    });
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const clients = new Map(REGIONS.map((name) => [name, new VigilClient(regionUrl(cloud, name))]));
  return {
    cloud,
    gate: new GateClient(cloud.endpoints.gate),
    region: (name) => {
      const client = clients.get(name);
      if (!client) throw new Error(`no region ${name}`);
      return client;
    },
    get clock() {
      const clock = cloud.clock.virtual;
      if (!clock) throw new Error('this local cloud runs on the system clock: start it with virtualClock: true');
      return clock;
    },
    close: async () => {
      try {
        await cloud.close();
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * Registers the calling file's hooks: a local cloud starts before its tests and closes after them.
 * The returned object is that cloud once started: read it inside tests and hooks, not at collection.
 */
export function useGateCloud(options: GateCloudOptions = {}): GateCloud {
  let started: GateCloud | undefined;
  beforeAll(async () => {
    started = await startGateCloud(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return new Proxy({} as GateCloud, {
    get(_, key) {
      if (!started) throw new Error('the local cloud is not started: use it inside a test or a hook');
      return Reflect.get(started, key, started);
    },
  });
}

/**
 * Virtual time passes by `ms` in steps of `everyMs`; at the start of each step every worker in
 * `reporting` beats once (a live worker's loop, in explicit order). Stops after the step in which
 * `until` first holds; answers the virtual time reached.
 */
export async function passTime(
  gc: GateCloud,
  ms: number,
  { everyMs = 250, reporting = [], until }: { everyMs?: number; reporting?: readonly RegionWorker[]; until?: () => boolean | Promise<boolean> } = {},
): Promise<number> {
  const end = gc.clock.now() + ms;
  while (gc.clock.now() < end) {
    for (const worker of reporting) await worker.beat();
    await gc.clock.advance(Math.min(everyMs, end - gc.clock.now()));
    if (until && (await until())) break;
  }
  return gc.clock.now();
}

function regionUrl(cloud: LocalCloud, region: string): string {
  const url = cloud.endpoints.regions[region];
  if (url === undefined) throw new Error(`no listener for ${region} in ${JSON.stringify(cloud.endpoints)}`);
  return url;
}

export type GateJob = GateJobHandle<Region>;

/** Submits a job through the gate with one workflow per region (all three unless named), each run by its own worker. */
export const submitAcross = (gc: GateCloud, request: Omit<GateJobRequest<Region>, 'regions'> & { regions?: readonly Region[] }): Promise<GateJob> =>
  submitGateJob(gc.gate, gc.region, { ...request, regions: request.regions ?? REGIONS });

/** Every event published in the local cloud for this job, in publishing order. */
export function eventsOf(cloud: LocalCloud, jobId: string) {
  return cloud.network.published
    .filter(({ event }) => event.detail['jobId'] === jobId)
    .map(({ origin, event, at }) => ({ origin, at, detailType: event.detailType, detail: event.detail }));
}

export const countByType = (events: ReadonlyArray<{ detailType: string }>): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const { detailType } of events) counts[detailType] = (counts[detailType] ?? 0) + 1;
  return counts;
};

export const timedOutGlobally = (job: JobView) => job.status === 'TIMED_OUT' && job.timeoutReason === 'global_timeout';
export const isFinished = (job: JobView) => job.status !== 'RUNNING';

/** The job as each region's manager sees it now. */
export async function regionViews(gc: GateCloud, jobId: string, regions: readonly Region[] = REGIONS): Promise<Partial<Record<Region, JobView>>> {
  return Object.fromEntries(await Promise.all(regions.map(async (region) => [region, ok(await gc.region(region).getJob(jobId))] as const)));
}

/** A `passTime` stop condition: every named region's view of the job satisfies `until`. */
export const inEveryRegion = (gc: GateCloud, jobId: string, until: (job: JobView) => boolean, regions: readonly Region[] = REGIONS) => async () =>
  Object.values(await regionViews(gc, jobId, regions)).every((view) => view !== undefined && until(view));
