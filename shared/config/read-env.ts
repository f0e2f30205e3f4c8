/** Reads a required environment variable, failing at cold start with a message that names it. */
export function requiredEnv(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const value = env[name];
  if (!value) throw new Error(`Environment variable ${name} is not set; the deployment must set it (see infra/).`);
  return value;
}

export function secondsEnv(name: string, fallback: number, env: NodeJS.ProcessEnv = process.env, atMost = Infinity): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`Environment variable ${name} must be a positive number of seconds, got '${raw}'.`);
  if (value > atMost) throw new Error(`Environment variable ${name} must be at most ${atMost} seconds, got '${raw}'; deploy with a smaller value (see infra/).`);
  return value;
}
