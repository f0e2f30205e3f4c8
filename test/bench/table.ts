/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

export const fmtMs = (ms: number): string => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'n/a');
export const fmtRate = (perSecond: number): string => (Number.isFinite(perSecond) ? `${Math.round(perSecond).toLocaleString('en-US')}/s` : 'n/a');
