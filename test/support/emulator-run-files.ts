import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { MotoServer } from './moto-server.js';

/** Files in the run directory through which test processes share one emulator per run. */
const serverFile = (runDir: string): string => join(runDir, 'moto-server.json');
const skipFile = (runDir: string): string => join(runDir, 'skipped.txt');
export const startFailureFile = (runDir: string): string => join(runDir, 'moto-start-failure.txt');
export const startLockDir = (runDir: string): string => join(runDir, 'moto-start.lock');
export const motoLogFile = (runDir: string): string => join(runDir, 'moto.log');

const motoServerSchema = z.object({ endpoint: z.string(), pid: z.number().int().positive() });

export function readMotoServerFile(runDir: string): MotoServer | undefined {
  const text = readText(serverFile(runDir));
  return text === undefined ? undefined : motoServerSchema.parse(JSON.parse(text));
}

export function writeMotoServerFile(runDir: string, server: MotoServer): void {
  writeFileSync(serverFile(runDir), JSON.stringify(server));
}

export function recordSkip(runDir: string, reason: string): void {
  appendFileSync(skipFile(runDir), `${reason}\n`);
}

export function readSkipReasons(runDir: string): string[] {
  return [...new Set((readText(skipFile(runDir)) ?? '').split('\n').filter(Boolean))];
}

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}
