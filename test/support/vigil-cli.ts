import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { delimiter, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';

/** The package's `bin`: what `npx vigil` runs. */
const VIGIL_BIN = fileURLToPath(new URL('../../shared/cli/bin/vigil.js', import.meta.url));

/**
 * How a test starts `vigil ARGS…`: `node` on the bundle of the command this run built
 * (test/support/vigil-cli-bundle-setup.ts), else on the package's bin. `vigil console` always takes
 * the bin: it serves the page from files next to its sources. `shipped`: the bin file itself,
 * executed through its shebang as npm's `.bin` link runs it (the `node` on PATH first being this one).
 */
export function vigilCommand(args: string[], { shipped = false }: { shipped?: boolean } = {}): { file: string; args: string[]; env: Record<string, string> } {
  if (shipped) return { file: VIGIL_BIN, args, env: { PATH: [dirname(process.execPath), process.env['PATH'] ?? ''].join(delimiter) } };
  const bundle: string | undefined = inject('vigilCliBundle');
  return { file: process.execPath, args: [bundle !== undefined && args[0] !== 'console' ? bundle : VIGIL_BIN, ...args], env: {} };
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** What a failed assertion should show. */
  transcript: string;
}

/**
 * Runs `vigil ARGS…` (see `vigilCommand`; `shipped`: the package's bin as npx runs it) to its end,
 * killed after `timeoutMs`. `onStdout` hears its output so far after each chunk: a test that must
 * act while the command runs waits on it.
 */
export function runVigil(
  args: string[],
  options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number; onStdout?: (soFar: string) => void; shipped?: boolean } = {},
): Promise<CliResult> {
  const command = vigilCommand(args, { shipped: options.shipped });
  return new Promise((resolve, reject) => {
    const child = spawn(command.file, command.args, {
      cwd: options.cwd ?? process.cwd(),
      env: { ...process.env, VIGIL_ENDPOINT: '', ...command.env, ...options.env },
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
