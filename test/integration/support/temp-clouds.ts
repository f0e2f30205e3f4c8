import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../../../shared/local/local-cloud.js';

/**
 * One-region local clouds on throwaway data dirs, closed and removed after each test. Short gate
 * intervals, long thresholds: a test drives what it needs and nothing else falls due.
 */
export function useTempClouds(prefix: string) {
  const dirs: string[] = [];
  const clouds: LocalCloud[] = [];
  afterEach(async () => {
    for (const cloud of clouds.splice(0)) await cloud.close().catch(() => undefined);
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    tempDir(): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    async start(dataDir: string, options: Partial<LocalCloudOptions> = {}): Promise<LocalCloud> {
      const cloud = await startLocalCloud({
        port: 0,
        regions: ['us-east-1'],
        dataDir,
        stuckThresholdSeconds: 600,
        gateFallbackSeconds: 60,
        gateStuckThresholdSeconds: 900,
        gateReportIntervalSeconds: 1,
        rebroadcastSeconds: 1,
        ...options,
      });
      clouds.push(cloud);
      return cloud;
    },
    /** A cloud the test closed itself (a crash it stands for). */
    async close(cloud: LocalCloud): Promise<void> {
      clouds.splice(clouds.indexOf(cloud), 1);
      await cloud.close();
    },
  };
}
