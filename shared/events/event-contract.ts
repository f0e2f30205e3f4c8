import * as z from '../validation/zod.js';
import type { BusEvent } from '../ports/event-bus.js';

export const EVENT_SOURCE = 'vigil';

export const isoTime = z.iso.datetime({ offset: true });
export const fenceToken = z.int().check(z.gte(0));
export const jobId = z.string().check(z.minLength(1), z.maxLength(128));
export const nonNegative = () => z.number().check(z.gte(0));
export const count = () => z.int().check(z.gte(0));

type Shape = Record<string, z.ZodMiniType>;
type Detail<S extends Shape> = z.infer<z.ZodMiniObject<S>>;

/**
 * One event type: its EventBridge `detail-type`, its schema version and the schema of its detail.
 *
 * Versions only add: a newer version of a detail-type keeps every field of the older ones, with
 * the same meaning, and may add optional fields (a change old readers cannot take is a new
 * detail-type). So a reader accepts every version, older and newer, dropping fields it does not
 * know. Regions are deployed one after another: an upgraded gate must still stop an older region's
 * job, and still hear an older region's reports. The one exception is AgentCompleted version 2
 * (pools/agent-completed.ts), which widens `outcome` for an end version 1 sent no event for.
 */
export interface EventContract<S extends Shape> {
  detailType: string;
  version: number;
  schema: z.ZodMiniObject<S & { version: z.ZodMiniNumber<number> }>;
  /** Builds a bus event, stamping the version. */
  build(detail: Omit<Detail<S>, 'version'>): BusEvent;
  /** Parses a received detail of any version; throws a ZodError naming each bad field. */
  parse(detail: unknown): Detail<S>;
}

export function defineEvent<S extends Shape>(detailType: string, version: number, shape: S): EventContract<S> {
  const schema = z.object({ ...shape, version: z.int().check(z.gte(1, 'version must be a whole number from 1')) });
  return {
    detailType,
    version,
    schema: schema as unknown as EventContract<S>['schema'],
    build: (detail) => ({ detailType, detail: { ...(detail as Record<string, unknown>), version } }),
    parse: (detail) => schema.parse(detail) as Detail<S>,
  };
}
