import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { withDirLock } from './dir-lock.js';

const INSTALL_TIMEOUT_MS = 8 * 60_000;

/** Why a Python tool cannot be set up on this machine, or undefined when python3 can make a venv. */
export function missingPythonReason(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import venv, ensurepip'], { encoding: 'utf8' });
  if (probe.error) return 'python3 is not on PATH (install python3 and python3-venv)';
  if (probe.status !== 0) return 'python3 cannot create a venv (install python3-venv, e.g. apt-get install -y python3-venv)';
  return undefined;
}

/**
 * Creates the project-local `venvDir` and pip-installs the pinned `requirement` into it unless a
 * previous run did (test processes share it under a lock); returns the venv's python.
 */
export async function ensurePythonVenv(venvDir: string, requirement: string): Promise<string> {
  const python = join(venvDir, 'bin', 'python');
  const marker = join(venvDir, 'vigil-requirement.txt');
  return withDirLock(`${venvDir}.lock`, INSTALL_TIMEOUT_MS, async () => {
    const installed = await readFile(marker, 'utf8').catch(() => '');
    if (existsSync(python) && installed === requirement) return python;
    console.info(`Installing ${requirement} into ${venvDir} (once; later runs reuse it)…`);
    await runQuietly('python3', ['-m', 'venv', '--clear', venvDir], `create the venv ${venvDir}`);
    await runQuietly(
      python,
      ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', requirement],
      `pip install '${requirement}' into ${venvDir}`,
    );
    await writeFile(marker, requirement);
    return python;
  });
}

function runQuietly(command: string, args: string[], what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`Could not ${what}: ${error.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`Could not ${what} (${signal ?? `exit ${code}`}). Output:\n${output.trimEnd().split('\n').slice(-40).join('\n')}`));
    });
  });
}
