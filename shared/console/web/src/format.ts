/** "4m 05s left", "12s overdue": time to a deadline for a person. */
export function timeLeft(deadlineIso: string, nowMs: number): string {
  const delta = Date.parse(deadlineIso) - nowMs;
  const abs = Math.abs(delta) / 1000;
  const text = abs >= 3600 ? `${Math.floor(abs / 3600)}h ${Math.floor((abs % 3600) / 60)}m` : abs >= 60 ? `${Math.floor(abs / 60)}m ${String(Math.floor(abs % 60)).padStart(2, '0')}s` : `${Math.floor(abs)}s`;
  return delta >= 0 ? `${text} left` : `${text} overdue`;
}

export const shortTime = (iso: unknown): string => (typeof iso === 'string' && iso ? new Date(iso).toLocaleTimeString() : '');
