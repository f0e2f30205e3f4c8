import * as z from '../../validation/zod.js';

const probability = () => z._default(z.number().check(z.gte(0), z.lte(1)), 0);
const milliseconds = () => z.int().check(z.gte(0));

/**
 * Faults the local network can inject between buses, for tests and demos:
 * redelivery after a drop, duplicates, delay (which also reorders), the gate down, regions cut off.
 */
export const networkFaultsSchema = z.strictObject({
  /** Probability that a delivery is lost and redelivered `redeliveryMs` later. */
  dropRate: probability(),
  redeliveryMs: z._default(milliseconds(), 2_000),
  /** Probability that a delivery arrives twice. */
  duplicateRate: probability(),
  /** Each delivery waits a uniform random time in [min, max]: unequal delays reorder. */
  delayMs: z._default(z.tuple([milliseconds(), milliseconds()]), [0, 0]),
  /** While true the gate hears nothing and says nothing: every event to or from it is lost. */
  gateDown: z._default(z.boolean(), false),
  /** Regions partitioned from the gate: events between them and the gate are lost. */
  cutOff: z._default(z.array(z.string()), []),
});

export type NetworkFaults = z.infer<typeof networkFaultsSchema>;
export const noFaults = (): NetworkFaults => networkFaultsSchema.parse({});
