import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const VIGIL_BIN = fileURLToPath(new URL('../../shared/cli/bin/vigil.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What a failed assertion should show. */
  transcript: string;
}

/**
 * Runs `vigil ARGS…` (the package's bin) to its end, killed after `timeoutMs`. `onStdout` hears its
 * output so far after each chunk: a test that must act while the command runs waits on it.
 */
export function runVigil(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; onStdout?: (soFar: string) => void } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [VIGIL_BIN, ...args], {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, VIGIL_ENDPOINT: '', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr, transcript: `vigil ${args.join(' ')} → ${code}\nstdout:\n${stdout}\nstderr:\n${stderr}` });
    });
  });
}

/**
 * True while a process with this pid runs. A killed orphan stays a zombie until init reaps it, which
 * may take a second: on Linux a zombie counts as gone.
 */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
