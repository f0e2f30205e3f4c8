import { readFileSync } from 'node:fs';
import type { Stack } from 'aws-cdk-lib';
import * as z from '../../shared/validation/zod.js';
import { GATE_STACK_NAME, regionStackName } from '../config/physical-names.js';
import type { VigilStacks } from '../vigil-app.js';

/**
 * What of a DynamoDB table CloudFormation cannot change on a deployed stack without failing the
 * update or replacing the table: its key, its attributes' types, its physical name when it has one,
 * each secondary index's key and projection (both kept in template order), and the TTL attribute
 * its items expire by.
 */
const keySchema = z.array(z.strictObject({ attributeName: z.string(), keyType: z.enum(['HASH', 'RANGE']) }));
const indexShape = z.strictObject({ keySchema, projection: z.strictObject({ type: z.string(), nonKeyAttributes: z.optional(z.array(z.string())) }) });
const tableShape = z.strictObject({
  keySchema,
  attributes: z.record(z.string(), z.string()),
  tableName: z.optional(z.string()),
  globalSecondaryIndexes: z.record(z.string(), indexShape),
  localSecondaryIndexes: z.record(z.string(), indexShape),
  timeToLiveAttribute: z.optional(z.string()),
});
export type TableShape = z.infer<typeof tableShape>;
/** Each stack's tables by logical id; every regional stack is recorded once, as `Vigil-<region>`. */
const tableShapes = z.record(z.string(), z.record(z.string(), tableShape));
export type TableShapes = z.infer<typeof tableShapes>;

export const REGIONAL_STACKS = regionStackName('<region>');
export const RELEASED_TABLE_SHAPES_FILE = new URL('../released-table-shapes.json', import.meta.url);

export function readReleasedTableShapes(): TableShapes {
  return tableShapes.parse(JSON.parse(readFileSync(RELEASED_TABLE_SHAPES_FILE, 'utf8')));
}

export const serializedTableShapes = (shapes: TableShapes): string => `${JSON.stringify(shapes, null, 2)}\n`;

const cfnKeySchema = z.array(z.object({ AttributeName: z.string(), KeyType: z.enum(['HASH', 'RANGE']) }));
const cfnIndexes = z.optional(
  z.array(
    z.object({
      IndexName: z.string(),
      KeySchema: cfnKeySchema,
      Projection: z.object({ ProjectionType: z.string(), NonKeyAttributes: z.optional(z.array(z.string())) }),
    }),
  ),
);
const cfnTableProperties = z.object({
  KeySchema: cfnKeySchema,
  AttributeDefinitions: z.array(z.object({ AttributeName: z.string(), AttributeType: z.string() })),
  TableName: z.optional(z.string()),
  GlobalSecondaryIndexes: cfnIndexes,
  LocalSecondaryIndexes: cfnIndexes,
  TimeToLiveSpecification: z.optional(z.object({ AttributeName: z.optional(z.string()), Enabled: z.boolean() })),
});
const cfnTemplate = z.object({ Resources: z.record(z.string(), z.object({ Type: z.string(), Properties: z.optional(z.unknown()) })) });

const keySchemaOf = (cfn: z.infer<typeof cfnKeySchema>) => cfn.map((key) => ({ attributeName: key.AttributeName, keyType: key.KeyType }));

const indexShapesOf = (indexes: z.infer<typeof cfnIndexes>): Record<string, z.infer<typeof indexShape>> =>
  Object.fromEntries(
    (indexes ?? []).map((index) => [
      index.IndexName,
      {
        keySchema: keySchemaOf(index.KeySchema),
        projection: {
          type: index.Projection.ProjectionType,
          ...(index.Projection.NonKeyAttributes ? { nonKeyAttributes: index.Projection.NonKeyAttributes } : {}),
        },
      },
    ]),
  );

/** The tables of one synthesized stack template, by logical id. */
export function tablesOf(template: unknown): Record<string, TableShape> {
  const tables: Record<string, TableShape> = {};
  for (const [logicalId, resource] of Object.entries(cfnTemplate.parse(template).Resources)) {
    if (resource.Type !== 'AWS::DynamoDB::Table') continue;
    const table = cfnTableProperties.parse(resource.Properties);
    const ttl = table.TimeToLiveSpecification;
    tables[logicalId] = {
      keySchema: keySchemaOf(table.KeySchema),
      attributes: Object.fromEntries(table.AttributeDefinitions.map((attribute) => [attribute.AttributeName, attribute.AttributeType])),
      ...(table.TableName !== undefined ? { tableName: table.TableName } : {}),
      globalSecondaryIndexes: indexShapesOf(table.GlobalSecondaryIndexes),
      localSecondaryIndexes: indexShapesOf(table.LocalSecondaryIndexes),
      ...(ttl?.Enabled && ttl.AttributeName !== undefined ? { timeToLiveAttribute: ttl.AttributeName } : {}),
    };
  }
  return tables;
}

/** The tables the app deploys: the regional stacks' (which must all be alike) and the gate's. */
export function deployedTableShapes(stacks: VigilStacks, templateOf: (stack: Stack) => unknown): TableShapes {
  const [first, ...others] = stacks.regional.map((stack) => ({ stack, tables: tablesOf(templateOf(stack)) }));
  if (!first) throw new Error('the app deploys no regional stack');
  for (const other of others) {
    if (JSON.stringify(other.tables) !== JSON.stringify(first.tables)) {
      throw new Error(`${other.stack.stackName} declares other tables than ${first.stack.stackName}: every region's must be alike, as they are recorded once`);
    }
  }
  return { [REGIONAL_STACKS]: first.tables, [GATE_STACK_NAME]: tablesOf(templateOf(stacks.gate)) };
}

const RECORD = 'npm run record-table-shapes';

/**
 * What would fail the CloudFormation update of a deployed stack from `released` to `current`, or
 * make it replace a table, each saying what to do instead. Empty: every table upgrades in place.
 */
export function upgradeProblems(released: TableShapes, current: TableShapes): string[] {
  const problems: string[] = [];
  for (const [stackName, releasedTables] of Object.entries(released)) {
    const currentTables = current[stackName] ?? {};
    for (const [logicalId, before] of Object.entries(releasedTables)) {
      const table = `${stackName}: table ${logicalId}`;
      const after = currentTables[logicalId];
      if (!after) {
        problems.push(
          `${table} is gone (its construct was renamed, moved or removed). CloudFormation would create a new, empty table under the new logical id and delete the released one, or leave it behind when retained, with every item in it. Keep the table's construct id and place.`,
        );
        continue;
      }
      const [keyBefore, keyAfter] = [keyText(before.keySchema, before.attributes), keyText(after.keySchema, after.attributes)];
      if (keyBefore !== keyAfter) {
        problems.push(
          `${table} changed its key (was ${keyBefore}, is ${keyAfter}). A new key replaces the table: CloudFormation creates a new, empty one. Keep the key; serve a new access pattern from a new index.`,
        );
      }
      if (before.tableName !== after.tableName) {
        problems.push(
          `${table} changed its name (was ${before.tableName ?? 'generated'}, is ${after.tableName ?? 'generated'}). A new physical name replaces the table: CloudFormation creates a new, empty one. Keep the name as released.`,
        );
      }
      const [localBefore, localAfter] = [localIndexesText(before), localIndexesText(after)];
      if (localBefore !== localAfter) {
        problems.push(
          `${table} changed its local secondary indexes (were ${localBefore}; are ${localAfter}). A local index exists only as its table was created: adding, changing or removing one replaces the table with a new, empty one. Keep them as released; serve a new access pattern from a global secondary index.`,
        );
      }
      if (before.timeToLiveAttribute !== undefined && before.timeToLiveAttribute !== after.timeToLiveAttribute) {
        problems.push(
          `${table} no longer expires items by '${before.timeToLiveAttribute}' (is ${after.timeToLiveAttribute === undefined ? 'no TTL' : `'${after.timeToLiveAttribute}'`}). Items the released version wrote would never expire, and DynamoDB changes a table's TTL attribute only by disabling TTL first, at most once an hour. Keep '${before.timeToLiveAttribute}'.`,
        );
      }
      for (const [indexName, index] of Object.entries(before.globalSecondaryIndexes)) {
        const now = after.globalSecondaryIndexes[indexName];
        if (!now) {
          problems.push(
            `${table}: index '${indexName}' was removed. The version deployed before may still query it while the regions roll forward, and CloudFormation deletes one index per update. Stop reading it in one release; remove it alone in a later one, and run \`${RECORD}\` in that change.`,
          );
          continue;
        }
        const [indexBefore, indexAfter] = [indexText(index, before.attributes), indexText(now, after.attributes)];
        if (indexBefore !== indexAfter) {
          problems.push(
            `${table}: index '${indexName}' changed (was ${indexBefore}; is ${indexAfter}). CloudFormation cannot change a deployed index's key or projection ("Cannot update GSI's properties other than Provisioned Throughput…") and rolls the whole update back. Keep '${indexName}' as released; add an index under a new name with the new shape (readers fall back while it backfills) and remove the old one in a later release.`,
          );
        }
      }
      const added = Object.keys(after.globalSecondaryIndexes).filter((indexName) => !(indexName in before.globalSecondaryIndexes));
      if (added.length > 1) {
        problems.push(
          `${table}: ${added.length} indexes added at once (${added.join(', ')}). CloudFormation creates or deletes one global secondary index per update and fails the update otherwise. Add one per release: keep the others for a later one.`,
        );
      }
    }
  }
  return problems;
}

const keyText = (schema: TableShape['keySchema'], attributes: TableShape['attributes']): string =>
  schema.map((key) => `${key.attributeName} ${attributes[key.attributeName] ?? '?'} ${key.keyType}`).join(', ');

const indexText = (index: TableShape['globalSecondaryIndexes'][string], attributes: TableShape['attributes']): string =>
  `key ${keyText(index.keySchema, attributes)}, projection ${[index.projection.type, ...(index.projection.nonKeyAttributes ?? [])].join(' ')}`;

const localIndexesText = (table: TableShape): string =>
  Object.entries(table.localSecondaryIndexes)
    .map(([indexName, index]) => `'${indexName}' ${indexText(index, table.attributes)}`)
    .join('; ') || 'none';
