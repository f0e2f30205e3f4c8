/** What a store was asked to do: calls by API name and capacity units (the cost model reads these). */
export interface DynamoUsage {
  calls: Record<string, number>;
  readUnits: number;
  writeUnits: number;
  /** Of `writeUnits`, those of the views for people: the decision history and the jobs list. */
  viewWriteUnits: number;
  /** Writes refused because the item would pass 400 KB: each one is state that could not be kept. */
  oversizedWrites: number;
}

export const newDynamoUsage = (): DynamoUsage => ({ calls: {}, readUnits: 0, writeUnits: 0, viewWriteUnits: 0, oversizedWrites: 0 });
