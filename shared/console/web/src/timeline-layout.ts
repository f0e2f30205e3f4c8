import type { HistoryEntryJson, JobHistoryJson } from './history-types.js';

/**
 * Where everything of a job's timeline goes, computed from its decision histories (the gate's and
 * each region's) without touching the DOM, so it can be tested as plain data. One lane per source.
 */
export type MarkShape = 'line' | 'dot' | 'ring' | 'square' | 'triangle' | 'cross' | 'diamond' | 'check' | 'flag' | 'bar' | 'arrow';

export interface Mark {
  kind: string;
  shape: MarkShape;
  x: number;
  /** Where an arrow ends (extensions: from the old deadline to the new one). */
  x2?: number;
  y: number;
  label?: string;
  /** Where the label goes, chosen so that labels near each other do not overlap nor leave the picture. */
  labelX?: number;
  labelY?: number;
  /** Hover text: what happened, exactly. */
  title: string;
}

export interface Span {
  kind: 'stuck-window';
  x: number;
  x2: number;
  y: number;
  height: number;
  title: string;
}

export interface Lane {
  source: string;
  y: number;
  marks: Mark[];
  spans: Span[];
}

export interface TimelineLayout {
  width: number;
  height: number;
  startMs: number;
  endMs: number;
  ticks: Array<{ x: number; label: string }>;
  lanes: Lane[];
  /** Now, when it lies inside the picture. */
  nowX?: number;
}

export const LANE_HEIGHT = 84;
const LEFT = 110;
const RIGHT = 24;
const TOP = 28;

/** A time from an answer, or nothing when it is not one (an odd answer must not break the whole picture). */
const ms = (iso: unknown): number | undefined => {
  const at = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(at) ? at : undefined;
};
const seconds = (deltaMs: number) => `${Math.round(deltaMs / 100) / 10}s`;

/** The picture's time range: from the first start to the last thing that happened or is due, with a margin. */
function timeRange(histories: readonly JobHistoryJson[]): { startMs: number; endMs: number } {
  const times: number[] = [];
  for (const h of histories) {
    for (const iso of [h.startedAt, h.originalDeadlineAt, h.effectiveDeadlineAt, h.finishedAt ?? h.now]) {
      const t = ms(iso);
      if (t !== undefined && Number.isFinite(t)) times.push(t);
    }
    for (const entry of h.entries) {
      const t = ms(entry.at);
      if (t !== undefined && Number.isFinite(t)) times.push(t);
    }
  }
  const startMs = Math.min(...times);
  const last = Math.max(...times);
  const span = Math.max(1_000, last - startMs);
  // Room on the right for the labels of the last things that happened.
  return { startMs, endMs: last + span * 0.12 };
}

function ticksFor(startMs: number, endMs: number, toX: (t: number) => number): Array<{ x: number; label: string }> {
  const span = endMs - startMs;
  const steps = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21600, 43200, 86400].map((s) => s * 1000);
  const step = steps.find((candidate) => span / candidate <= 8) ?? 86_400_000 * Math.ceil(span / 8 / 86_400_000);
  const ticks: Array<{ x: number; label: string }> = [];
  for (let t = 0; t <= span; t += step) ticks.push({ x: toX(startMs + t), label: `+${seconds(t)}` });
  return ticks;
}

/** One entry as a mark; undefined for kinds the lane draws otherwise (the submission is the lane's start line). */
function markOf(entry: HistoryEntryJson, x: number, y: number, toX: (t: number) => number): Mark | undefined {
  const str = (name: string) => (typeof entry[name] === 'string' ? String(entry[name]) : '');
  switch (entry.kind) {
    case 'progress':
      return { kind: 'progress', shape: 'dot', x, y, title: `progress ${entry['progress'] ?? ''} from ${str('workerId')} (${str('workflowId')}) at ${entry.at}` };
    case 'heartbeat':
      return { kind: 'heartbeat', shape: 'ring', x, y, title: `heartbeat (no progress) from ${str('workerId')} (${str('workflowId')}) at ${entry.at}` };
    case 'extension': {
      const from = ms(entry['fromDeadlineAt']) ?? 0;
      const to = ms(entry['toDeadlineAt']) ?? 0;
      return {
        kind: 'extension',
        shape: 'arrow',
        x: toX(from),
        x2: toX(to),
        y: y - 16,
        label: `+${entry['seconds']}s ${str('workerId')}`,
        title: `extension of ${entry['seconds']} s for ${str('workerId')}: deadline ${str('fromDeadlineAt')} → ${str('toDeadlineAt')} (granted at ${entry.at})`,
      };
    }
    case 'gate_report':
      return { kind: 'gate-report', shape: 'square', x, y: y + 14, title: `progress report ${entry['region'] ? `from ${str('region')} ` : ''}to the gate at ${entry.at}` };
    case 'timeout_report':
      return {
        kind: 'timeout-report',
        shape: 'triangle',
        x,
        y,
        label: entry['region'] ? `report ${str('region')}` : 'reported',
        title: `local timeout (${str('reason')}) reported to the gate${entry['region'] ? ` by ${str('region')}` : ''} at ${entry.at}`,
      };
    case 'local_timeout':
      return { kind: 'local-timeout', shape: 'cross', x, y, title: `local timeout (${str('reason')}) at ${entry.at}` };
    case 'gate_decision':
      return {
        kind: 'decision',
        shape: 'diamond',
        x,
        y,
        label: str('decision'),
        title: `gate decision ${str('decision')}${entry['reason'] ? ` (${str('reason')})` : ''}, fence ${entry['fenceToken']}, at ${entry.at}`,
      };
    case 'region_confirmed':
      return { kind: 'confirmed', shape: 'check', x, y: y + 14, label: str('region'), title: `${str('region')} confirmed ${str('status')} at ${entry.at}` };
    case 'takeover':
      return {
        kind: 'takeover',
        shape: 'flag',
        x,
        y,
        label: `fence ${entry['fromFenceToken']}→${entry['toFenceToken']}`,
        title: `takeover${entry['region'] ? ` in ${str('region')}` : ''}: fence token ${entry['fromFenceToken']} → ${entry['toFenceToken']} at ${entry.at}`,
      };
    case 'final':
      return {
        kind: 'final',
        shape: 'bar',
        x,
        y,
        label: `${str('status')}${entry['reason'] ? ` (${str('reason')})` : ''}`,
        title: `${str('status')}${entry['reason'] ? ` (${str('reason')})` : ''} at ${entry.at}`,
      };
    default:
      return undefined;
  }
}

/** Label rows of a lane: three above the line, two below; a label takes the first row where it fits. */
const LABEL_ROWS = [-30, -21, -12, 24, 33];
const LABEL_CHAR_PX = 5.6;

function placeLabels(marks: Mark[], y: number, width: number): void {
  const rowEnds = LABEL_ROWS.map(() => -Infinity);
  const labelled = marks.filter((m) => m.label).sort((a, b) => labelStart(a, width) - labelStart(b, width));
  for (const mark of labelled) {
    const x = labelStart(mark, width);
    let row = rowEnds.findIndex((end) => end <= x);
    if (row === -1) row = rowEnds.indexOf(Math.min(...rowEnds));
    rowEnds[row] = x + labelWidth(mark) + 6;
    mark.labelX = x;
    mark.labelY = y + (LABEL_ROWS[row] ?? 0);
  }
}

const labelWidth = (mark: Mark): number => (mark.label?.length ?? 0) * LABEL_CHAR_PX;

/** Where a mark's label starts: right of the mark (left of it near the right edge), or over the middle of an arrow. */
function labelStart(mark: Mark, width: number): number {
  if (mark.shape === 'arrow') return (mark.x + (mark.x2 ?? mark.x)) / 2 - labelWidth(mark) / 2;
  return mark.x + 5 + labelWidth(mark) > width - 2 ? mark.x - 5 - labelWidth(mark) : mark.x + 5;
}

/** The stuck window: from the last progress to the moment the job counts as stuck. Drawn while it matters. */
function stuckWindow(h: JobHistoryJson, y: number, toX: (t: number) => number): Span | undefined {
  if (h.stuckThresholdSeconds === undefined) return undefined;
  const progressTimes = h.entries.filter((e) => e.kind === 'progress').map((e) => ms(e.at) ?? 0);
  const lastProgress = Math.max(ms(h.lastProgressAt) ?? 0, ms(h.startedAt) ?? 0, ...progressTimes);
  const stuckAt = lastProgress + h.stuckThresholdSeconds * 1000;
  if (h.status !== 'RUNNING' && h.timeoutReason !== 'stuck') return undefined;
  return {
    kind: 'stuck-window',
    x: toX(lastProgress),
    x2: toX(stuckAt),
    y: y - 26,
    height: 52,
    title: `stuck window: no progress since ${new Date(lastProgress).toISOString()}; stuck at ${new Date(stuckAt).toISOString()} (threshold ${h.stuckThresholdSeconds} s)`,
  };
}

export function layoutTimeline(histories: readonly JobHistoryJson[], width: number): TimelineLayout {
  const ordered = [...histories].sort((a, b) => (a.source === 'gate' ? -1 : b.source === 'gate' ? 1 : a.source.localeCompare(b.source)));
  const height = TOP + Math.max(1, ordered.length) * LANE_HEIGHT + 12;
  if (ordered.length === 0) return { width, height, startMs: 0, endMs: 0, ticks: [], lanes: [] };
  const { startMs, endMs } = timeRange(ordered);
  const plot = Math.max(1, width - LEFT - RIGHT);
  const toX = (t: number) => LEFT + (Math.min(Math.max(t, startMs), endMs) - startMs) * (plot / (endMs - startMs));
  const lanes = ordered.map((h, index): Lane => {
    const y = TOP + index * LANE_HEIGHT + LANE_HEIGHT / 2;
    const marks: Mark[] = [];
    marks.push({ kind: 'start', shape: 'line', x: toX(ms(h.startedAt) ?? startMs), y, label: 'start', title: `started at ${h.startedAt}` });
    marks.push({ kind: 'deadline', shape: 'line', x: toX(ms(h.originalDeadlineAt) ?? startMs), y, label: 'deadline', title: `deadline at submission: ${h.originalDeadlineAt}` });
    if (h.effectiveDeadlineAt !== h.originalDeadlineAt) {
      marks.push({ kind: 'effective-deadline', shape: 'line', x: toX(ms(h.effectiveDeadlineAt) ?? startMs), y, label: 'extended deadline', title: `effective deadline: ${h.effectiveDeadlineAt}` });
    }
    for (const entry of h.entries) {
      const mark = markOf(entry, toX(ms(entry.at) ?? startMs), y, toX);
      if (mark) marks.push(mark);
    }
    placeLabels(marks, y, width);
    const stuck = stuckWindow(h, y, toX);
    return { source: h.source, y, marks, spans: stuck ? [stuck] : [] };
  });
  const now = Math.max(...ordered.map((h) => ms(h.now) ?? 0));
  return {
    width,
    height,
    startMs,
    endMs,
    ticks: ticksFor(startMs, endMs, toX),
    lanes,
    ...(now >= startMs && now <= endMs ? { nowX: toX(now) } : {}),
  };
}
