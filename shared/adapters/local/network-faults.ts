import { z } from 'zod';

/**
 * Faults the local network can inject between buses, for tests and demos (issue 3):
 * redelivery after a drop, duplicates, delay (which also reorders), the gate down, regions cut off.
 */
export const networkFaultsSchema = z
  .object({
    /** Probability that a delivery is lost and redelivered `redeliveryMs` later. */
    dropRate: z.number().min(0).max(1).default(0),
    redeliveryMs: z.number().int().nonnegative().default(2_000),
    /** Probability that a delivery arrives twice. */
    duplicateRate: z.number().min(0).max(1).default(0),
    /** Each delivery waits a uniform random time in [min, max]: unequal delays reorder. */
    delayMs: z.tuple([z.number().int().nonnegative(), z.number().int().nonnegative()]).default([0, 0]),
    /** While true the gate hears nothing and says nothing: every event to or from it is lost. */
    gateDown: z.boolean().default(false),
    /** Regions partitioned from the gate: events between them and the gate are lost. */
    cutOff: z.array(z.string()).default([]),
  })
  .strict();

export type NetworkFaults = z.infer<typeof networkFaultsSchema>;
export const noFaults = (): NetworkFaults => networkFaultsSchema.parse({});
