import { z } from 'zod';
import type { BusEvent } from '../ports/event-bus.js';

export const EVENT_SOURCE = 'vigil';

export const isoTime = z.iso.datetime({ offset: true });
export const fenceToken = z.number().int().nonnegative();
export const jobId = z.string().min(1).max(128);

/** One event type: its EventBridge `detail-type`, its schema version and the schema of its detail. */
export interface EventContract<Shape extends z.ZodRawShape> {
  detailType: string;
  version: number;
  schema: z.ZodObject<Shape & { version: z.ZodLiteral<number> }>;
  /** Builds a bus event, stamping the version. */
  build(detail: Omit<z.infer<z.ZodObject<Shape>>, 'version'>): BusEvent;
  /** Parses a received detail; throws a ZodError naming each bad field. */
  parse(detail: unknown): z.infer<z.ZodObject<Shape>>;
}

export function defineEvent<Shape extends z.ZodRawShape>(
  detailType: string,
  version: number,
  shape: Shape,
): EventContract<Shape> {
  const schema = z.object({ ...shape, version: z.literal(version) });
  return {
    detailType,
    version,
    schema: schema as EventContract<Shape>['schema'],
    build: (detail) => ({ detailType, detail: { ...(detail as Record<string, unknown>), version } }),
    parse: (detail) => schema.parse(detail) as z.infer<z.ZodObject<Shape>>,
  };
}
