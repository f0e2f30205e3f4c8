/** "4m 05s left", "12s overdue": time to a deadline for a person. */
export function timeLeft(deadlineIso: string, nowMs: number): string {
  const delta = Date.parse(deadlineIso) - nowMs;
  const abs = Math.abs(delta) / 1000;
  const text = abs >= 3600 ? `${Math.floor(abs / 3600)}h ${Math.floor((abs % 3600) / 60)}m` : abs >= 60 ? `${Math.floor(abs / 60)}m ${String(Math.floor(abs % 60)).padStart(2, '0')}s` : `${Math.floor(abs)}s`;
  return delta >= 0 ? `${text} left` : `${text} overdue`;
}

/** A time for a person: the time of day when it is today, else the date too (lists span 30 days). */
export function shortTime(iso: unknown, today: Date = new Date()): string {
  if (typeof iso !== 'string' || !iso) return '';
  const at = new Date(iso);
  return at.toDateString() === today.toDateString() ? at.toLocaleTimeString() : at.toLocaleString();
}
