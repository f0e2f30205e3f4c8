import { describe, expect, it } from 'vitest';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import type { FaultKind } from '../../shared/simulation/world/plan.js';

/** The fault kinds of the long sweep that found these seeds, listed so new kinds do not redraw their plans. */
const SWEEP_FAULTS: FaultKind[] = [
  'drop', 'duplicate', 'delay', 'reorder', 'crash', 'redelivery', 'index-lag', 'timer-loss', 'gate-down',
  'region-cut', 'bus-outage', 'takeover', 'worker-dies', 'worker-hangs', 'extension-no-progress', 'worker-recovers',
];

/** The later sweeps' further kinds (agent pools, bursty workers), in the order `--faults all` lists them. */
const POOL_SWEEP_FAULTS: FaultKind[] = [
  'agent-dies', 'agent-slow', 'agent-ignores-terminate', 'agent-stops-checkpointing', 'agent-late-result', 'worker-bursts',
];

describe('seeds the long sweep flagged', () => {
  // CI plan, seeds 920,001–925,000: two workers died holding grants, then a takeover re-armed the job's
  // wake-up from its own timeout (where their grants stop counting) to the deadline the grants made,
  // 70.4 s past the bound. A takeover now never moves the armed wake-up later. With the agents beating
  // at the claim's cadence and that fix taken out, the seed shows it again (74 s past the bound).
  it('seed 921335: a takeover keeps the wake-up at the own timeout where dead workers\' grants lapse', async () => {
    // Act
    const faults: FaultKind[] = [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel', 'worker-extends-then-dies', 'agent-gives-back'];
    const result = await runPlan(generatePlan(921335, { jobs: 3, regions: 2, pools: 1, maxTimeoutSeconds: 300, faults }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // CI plan, seeds 940,001–945,000, caught a change of a review before it landed (seed 942,888): the pool
  // of an item timed out under `timeout_action: fail` was failed as of that timeout's own moment, which
  // a lost timer had put 48 s in the past, so another item's agent, told only when the failure was
  // applied, had already used 48 s of its grace period. A pool fails when its timeout is applied, and
  // every running agent's grace period runs from then. Re-found with the agents beating at the claim's
  // cadence, the same seeds with the failure backdated again: 940,905 (the first), where the sweep
  // applies a fail timeout 41 s late and the other agent was "told to terminate" 41 s before it heard.
  it('seed 940905: an agent of a pool failed by a late-applied timeout gets its whole grace period', async () => {
    // Act
    const faults: FaultKind[] = [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel', 'worker-extends-then-dies', 'agent-gives-back'];
    const result = await runPlan(generatePlan(940_905, { jobs: 3, regions: 2, pools: 1, maxTimeoutSeconds: 300, faults }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // Caught when the grant-lapse fix (a silently failed worker's grant stops counting at its failure)
  // is taken out: two workers die holding grants ~100 s before the deadline, and the job ran on to the
  // deadline their grants made, 80 s past the bound from their failure.
  it('seed 25: grants of workers that died stop counting once they are failed', async () => {
    // Act
    const result = await runPlan(generatePlan(25, { jobs: 4, regions: 1, pools: 0, maxTimeoutSeconds: 600, faults: ['worker-extends-then-dies'] }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // Both: a worker finished its part of a job and got a fresh budget, so its grant stopped counting and
  // the job's deadline moved 72 s into the past at that moment (205722: and the wake-up re-armed for it
  // was lost). The job then timed out within the bound of that moment, not of the retroactive deadline.
  it.each([205054, 205722])('seed %i: a deadline moved into the past ends the job within the bound from when it moved', async (seed) => {
    // Act
    const result = await runPlan(generatePlan(seed, { jobs: 4, regions: 2, pools: 0, maxTimeoutSeconds: 600, faults: SWEEP_FAULTS }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // Gate-coordinated, cut off from a gate that was down: the local timeout and then the fallback each
  // waited for the sweep (8657: a sweep crashed, then a takeover at the next sweep's instant left a
  // lagging index entry with the old fence). The bound now holds one sweep for each of the two
  // decisions, and a sweep fires the job's own overdue wake-up whatever fence the index still shows.
  it.each([8657, 9237, 10625])('seed %i: both gate-coordinated decisions recovered by the sweep stay within the bound', async (seed) => {
    // Act
    const result = await runPlan(generatePlan(seed, { jobs: 4, regions: 2, pools: 0, maxTimeoutSeconds: 600, faults: SWEEP_FAULTS }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // A claim crashed after its write (the agent never learned it held it-0), the pool then failed, and
  // the wake-up armed to end that attempt was lost: it existed only as a message, so the sweep could
  // not find it, and the attempt stayed running 71 s past the pool's end. A stopped pool's early
  // wake-ups are now stored on their items (test/app/pools/pool-stop-wakes-items.test.ts). The seed no
  // longer shows it: with the stop's wake pass kept out of the sweep's index it passes, with the
  // agents at the claim's cadence or at the old one, and none of 320,001–340,000 fails so; the app
  // test holds the fix.
  it('seed 327011: a stopped pool ends an orphaned attempt within the bound though its wake-up was lost', async () => {
    // Act
    const result = await runPlan(generatePlan(327_011, { jobs: 3, regions: 2, pools: 1, maxTimeoutSeconds: 300, faults: [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS] }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // A pool-heavy plan (4 pools, one of them with a single agent for 6 items that often overrun and are
  // retried): the run ended 166 s into an attempt claimed with a 204 s limit. An attempt in flight that
  // owes nothing yet is not unsettled (a plan may hold more work than the run's length); an overdue
  // one is still `pool-no-leak`'s. The seed no longer ends so (with the agents at the claim's cadence
  // or at the old one), nor does any of 700,001–720,000: test/sim/pools.test.ts holds the rule.
  it('seed 706937: an attempt claimed shortly before the end of the run is in flight, not unsettled', async () => {
    // Act
    const plan = generatePlan(706_937, { jobs: 0, regions: 2, pools: 4, maxTimeoutSeconds: 600, faults: [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel'] });
    const result = await runPlan(plan);
    // Assess
    expect(result.violations).toEqual([]);
  });

  // Seed 735,466 of the pool-only sweep: a claim found nothing (the claim index still lagged the new
  // pool) and the agent went to poll a minute later; the claim's redelivered invocation then took it-0,
  // and its answer reached the agent, which held the attempt without a heartbeat until that poll: told
  // to terminate at the pool's cancel, it learned only 31 s later. An answer that arrives after the
  // claim moved on now starts the work. Re-found with the agents beating at the claim's cadence and
  // that fix taken out (seeds 735,001–738,000, the first of 48): a claim crashed after its write, its
  // client's retry took it-3 after the agent had gone to poll, and the pool was cancelled 2 s later.
  // A silent agent sends no beat to be answered, so `agent-learns-to-stop` holds it to three
  // heartbeats whether or not its beats could have been heard (pool-invariants.ts).
  it('seed 735059: an agent whose claim is answered late starts heartbeating at once, and learns to stop', async () => {
    // Act
    const plan = generatePlan(735_059, { jobs: 0, regions: 2, pools: 4, maxTimeoutSeconds: 600, faults: [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel'] });
    const result = await runPlan(plan);
    // Assess
    expect(result.violations).toEqual([]);
  });
  // A worker asked for an extension 6 s after its job's deadline had passed, before the job's wake-up
  // fired, and the grant moved the deadline 30 s on: a late wake-up let the job escape a timeout it
  // was already owed. A job past its deadline now refuses grants (`no-revival`).
  it('seed 26: a grant made after the deadline passed does not move it', async () => {
    // Act
    const plan = generatePlan(26, { jobs: 4, regions: 2, pools: 0, maxTimeoutSeconds: 600, faults: [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel'] });
    const result = await runPlan(plan);
    // Assess
    expect(result.violations).toEqual([]);
  });

  // CI plan, seeds 2,100,001–2,103,000, the first sweep with a crash at any store write: a wake-up
  // re-armed for the deadline was lost, and the one sweep run that would have fired it died before
  // its first write (2,100,765: a job, 71 s past its deadline; 2,102,631: a cancelled pool's attempt,
  // 73 s past). A dead run is not retried; the next minute's fires it. The stated bound now gives
  // each run that died once the entry was overdue one more minute (`boundWithDeadSweepsMs`).
  // Re-found with the agents beating at the claim's cadence and the dead runs not counted, over
  // 2,100,001–2,125,000: two jobs, each just past the 70 s bound (2,120,021: its first wake-up lost at
  // submission; 2,123,540: a re-armed one lost), and no pool attempt (an agent's beat now reaches an
  // overdue one sooner); the pool bound's minute is held by test/sim/pools.test.ts.
  it.each([2_120_021, 2_123_540])('seed %i: a wake-up whose sweep run died ends within the bound and one minute more', async (seed) => {
    // Act
    const faults: FaultKind[] = [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel', 'worker-extends-then-dies', 'agent-gives-back'];
    const result = await runPlan(generatePlan(seed, { jobs: 3, regions: 2, pools: 1, maxTimeoutSeconds: 300, faults }));
    // Assess
    expect(result.crashes.at('before write 1', 'sweep')).toBeGreaterThan(0);
    expect(result.violations).toEqual([]);
  });

  // Found once handlers take time (`slow-calls`: store calls and clock readings move the one clock)
  // and a wake-up may arrive a few ms early by its handler's clock (`clock-skew`), with the fix of
  // 6a89caf taken out (1 of 2,000 seeds): the lapse-check wake-up of a job kept past its own timeout
  // by grants read a silent worker's health just before the moment its grant lapses, and decided
  // just after it: due, though neither past its deadline nor stuck, the job was timed out as stuck
  // while another worker advanced. Such a wake-up now looks again at once.
  it('seed 343: a grant lapse check whose reads straddle the lapse moment does not time a job out as stuck', async () => {
    // Act
    const faults: FaultKind[] = ['slow-calls', 'clock-skew', 'worker-recovers', 'worker-extends-then-dies', 'worker-dies', 'worker-hangs', 'worker-bursts'];
    const result = await runPlan(generatePlan(343, { jobs: 4, regions: 1, pools: 0, maxTimeoutSeconds: 600, faults }));
    // Assess
    expect(result.violations).toEqual([]);
  });

  // Pool-heavy plan, seeds 748,601–749,600, the first sweep with the faults of time: a flaw of the
  // stale-attempt guard, not of Vigil. A late result of an older attempt was refused, and the call
  // applied the item's own due transitions as of its clock, which `slow-calls` had moved on since the
  // guard judged them at the step's start: the guard now accepts the fate due at any instant of the step.
  it.each([748_670, 749_575])('seed %i: a stale call applies the item\'s due transitions as of its own clock', async (seed) => {
    // Act
    const faults: FaultKind[] = [...SWEEP_FAULTS, ...POOL_SWEEP_FAULTS, 'pool-cancel', 'worker-extends-then-dies', 'agent-gives-back', 'key-rotation', 'slow-calls', 'clock-skew'];
    const result = await runPlan(generatePlan(seed, { jobs: 0, regions: 2, pools: 4, maxTimeoutSeconds: 600, faults }));
    // Assess
    expect(result.violations).toEqual([]);
  });
});
