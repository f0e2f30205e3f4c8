import type { EpochMs } from '../time.js';

/**
 * One fact of a job's decision history, as the region manager or the gate recorded it. Every kind
 * is bounded by construction (see `historySlot`), so a job's history never grows without limit.
 */
export type HistoryEntry =
  /** A worker's report that moved its progress value (`progress`) or only said it is alive (`heartbeat`): sampled. */
  | { kind: 'progress' | 'heartbeat'; at: EpochMs; workflowId: string; workerId: string; progress?: number }
  /**
   * AD-26: a grant that moved the effective deadline. The job item names the worker by the index of
   * its workflow (`workerIndex`); the history answer fills in its `workerId`.
   */
  | { kind: 'extension'; at: EpochMs; workerIndex?: number; workerId?: string; seconds: number; fromDeadlineAt: EpochMs; toDeadlineAt: EpochMs }
  /** A gate-coordinated manager's periodic progress report to the gate (region side), or its receipt (gate side): sampled. */
  | { kind: 'gate_report'; at: EpochMs; region?: string; lastProgressAt: EpochMs }
  /** The manager timed the job out locally (local authority: final; gate-coordinated: reported, awaiting the gate). */
  | { kind: 'local_timeout'; at: EpochMs; reason: string }
  /** A local timeout reported to the gate (region side), or received by it (gate side, with `region`). */
  | { kind: 'timeout_report'; at: EpochMs; reason: string; region?: string }
  /** Leadership moved: the fence token went up; anything older is refused from here on. */
  | { kind: 'takeover'; at: EpochMs; fromFenceToken: number; toFenceToken: number; region?: string }
  /** The gate's global decision (gate side), or its arrival in a region (region side). */
  | { kind: 'gate_decision'; at: EpochMs; decision: 'global_timeout' | 'cancel'; reason?: string; fenceToken: number }
  /** The gate heard a region's final status: the region confirmed how the job ended there. */
  | { kind: 'region_confirmed'; at: EpochMs; region: string; status: string }
  /** The job reached a terminal status. */
  | { kind: 'final'; at: EpochMs; status: string; reason?: string };

export type HistoryKind = HistoryEntry['kind'];

/** How many sample buckets span the job's original deadline; samples past twice that are dropped. */
export const SAMPLE_BUCKETS = 120;
/** Takeovers kept per job (per region); later ones still fence, they are just not drawn. */
export const MAX_TAKEOVERS = 100;

/**
 * Order of kinds in storage: a history read is capped, and what is cut first must be the most
 * numerous and least telling (extensions: up to 5 per worker, samples), never the decisions.
 */
const RANK: Record<HistoryKind, string> = {
  final: '0',
  gate_decision: '1',
  local_timeout: '2',
  timeout_report: '3',
  region_confirmed: '4',
  takeover: '5',
  gate_report: '6',
  progress: '7',
  heartbeat: '8',
  extension: '9',
};

export interface SampleWindow {
  startedAt: EpochMs;
  timeoutSeconds: number;
}

/** The sample bucket of a moment: a job keeps at most one sample per kind and bucket. */
export function sampleBucket(at: EpochMs, window: SampleWindow): number | undefined {
  const bucketMs = Math.max(1_000, Math.ceil((window.timeoutSeconds * 1000) / SAMPLE_BUCKETS));
  const bucket = Math.floor((at - window.startedAt) / bucketMs);
  return bucket < 0 || bucket >= 2 * SAMPLE_BUCKETS ? undefined : bucket;
}

/**
 * The entry's storage slot: the same fact always lands in the same slot (a retried write
 * overwrites itself), and every kind has a fixed number of slots. `undefined`: over the cap, not kept.
 */
export function historySlot(entry: HistoryEntry, window: SampleWindow): string | undefined {
  const slot = (discriminator: string) => `${RANK[entry.kind]}#${entry.kind}#${discriminator}`;
  switch (entry.kind) {
    case 'final':
    case 'local_timeout':
      return slot('');
    case 'gate_decision':
      return slot(entry.decision);
    case 'timeout_report':
      return slot(entry.region ?? '');
    case 'region_confirmed':
      return slot(entry.region);
    case 'takeover':
      return entry.toFenceToken > MAX_TAKEOVERS ? undefined : slot(`${entry.region ?? ''}#${entry.toFenceToken}`);
    case 'extension':
      return slot(`${entry.toDeadlineAt}#${entry.workerIndex ?? entry.workerId ?? ''}`);
    case 'gate_report':
    case 'progress':
    case 'heartbeat': {
      const bucket = sampleBucket(entry.at, window);
      return bucket === undefined ? undefined : slot(`${entry.kind === 'gate_report' ? (entry.region ?? '') : ''}#${bucket}`);
    }
  }
}
