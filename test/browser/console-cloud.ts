import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../../shared/local/local-cloud.js';

/**
 * The embedded local cloud on free ports with a fresh data dir, quick knobs for the browser tests;
 * `options` overrides them (`virtualClock: true`: time moves only when the test advances it).
 */
export async function startConsoleCloud(
  regions: string[],
  options: Partial<Omit<LocalCloudOptions, 'dataDir' | 'port' | 'regions'>> = {},
): Promise<{ cloud: LocalCloud; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-console-'));
  const cloud = await startLocalCloud({
    port: 0,
    regions,
    dataDir,
    gateFallbackSeconds: 300,
    stuckThresholdSeconds: 120,
    gateStuckThresholdSeconds: 180,
    sweepIntervalMs: 500,
    gateReportIntervalSeconds: 1,
    rebroadcastSeconds: 1,
    extensionBaseSeconds: 3,
    ...options,
  });
  return {
    cloud,
    stop: async () => {
      await cloud.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function call<T = Record<string, unknown>>(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
  const response = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { 'x-vigil-token': token } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as T };
}
