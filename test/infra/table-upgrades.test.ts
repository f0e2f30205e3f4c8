import { beforeAll, describe, expect, it } from 'vitest';
import { GATE_STACK_NAME } from '../../infra/config/physical-names.js';
import {
  deployedTableShapes,
  readReleasedTableShapes,
  REGIONAL_STACKS,
  upgradeProblems,
  type TableShape,
  type TableShapes,
} from '../../infra/tools/table-shapes.js';
import { synthesizeVigil } from './support/vigil-app.js';

let deployed: TableShapes;

beforeAll(() => {
  const vigil = synthesizeVigil();
  deployed = deployedTableShapes(vigil, (stack) => vigil.template(stack).toJSON());
});

// CloudFormation refuses an in-place change of a deployed GSI's key or projection, and more than one
// GSI created or deleted per update, and rolls the whole update back; a new table key or logical id
// replaces the table with an empty one. infra/released-table-shapes.json holds the released tables.
describe('a deployed stack upgrades to this version: its tables change only as CloudFormation allows', () => {
  it('every released table, key and index is still deployed as released, and at most one index per table is new', () => {
    // Act
    const problems = upgradeProblems(readReleasedTableShapes(), deployed);
    // Assess
    expect(problems, problems.join('\n\n')).toEqual([]);
  });

  it('the record covers the regional table and the gate table', () => {
    const released = readReleasedTableShapes();
    expect(Object.keys(released).sort()).toEqual([GATE_STACK_NAME, REGIONAL_STACKS].sort());
    for (const stack of [REGIONAL_STACKS, GATE_STACK_NAME]) {
      expect(Object.keys(released[stack] ?? {}), stack).toHaveLength(1);
      expect(Object.values(released[stack] ?? {}).map((table) => table.timeToLiveAttribute), stack).toEqual(['expiresAt']);
    }
  });
});

describe('the upgrade rules, on the deployed tables changed by hand', () => {
  /** The deployed shapes with the regional table changed by `change`. */
  function withRegionalTable(change: (table: TableShape) => TableShape): TableShapes {
    const [[logicalId, table]] = Object.entries(structuredClone(deployed[REGIONAL_STACKS] ?? {})) as [[string, TableShape]];
    return { ...deployed, [REGIONAL_STACKS]: { [logicalId]: change(table) } };
  }
  const newIndex = { keySchema: [{ attributeName: 'pk', keyType: 'HASH' as const }], projection: { type: 'KEYS_ONLY' } };

  it('the review finding: a table released with poolItems projecting no stats does not upgrade to one projecting them', () => {
    // Prepare: the poolItems index as 79a65ca released it
    const released = withRegionalTable((table) => {
      const poolItems = table.globalSecondaryIndexes['poolItems'];
      if (!poolItems) throw new Error('no poolItems index');
      poolItems.projection.nonKeyAttributes = ['state', 'splitPending'];
      return table;
    });
    // Act
    const problems = upgradeProblems(released, deployed);
    // Assess
    expect(problems).toEqual([
      expect.stringMatching(
        /^Vigil-<region>: table JobsTable\w+: index 'poolItems' changed \(was key poolId S HASH, sk S RANGE, projection INCLUDE state splitPending; is .*INCLUDE state splitPending stats\)\. CloudFormation cannot change .* add an index under a new name/,
      ),
    ]);
  });

  it('an index whose key changes, or whose key attribute changes type, is refused', () => {
    const rekeyed = withRegionalTable((table) => ({ ...table, attributes: { ...table.attributes, timerDueAt: 'S' } }));
    expect(upgradeProblems(deployed, rekeyed)).toEqual([expect.stringMatching(/index 'timers' changed \(was key timerShard S HASH, timerDueAt N RANGE.*; is key timerShard S HASH, timerDueAt S RANGE/)]);
  });

  it('a removed index is refused, saying to stop reading it first and record the removal with it', () => {
    const without = withRegionalTable((table) => {
      delete table.globalSecondaryIndexes['byWorker'];
      return table;
    });
    expect(upgradeProblems(deployed, without)).toEqual([expect.stringMatching(/index 'byWorker' was removed\..*Stop reading it in one release; remove it alone in a later one, and run `npm run record-table-shapes`/)]);
  });

  it('one new index is allowed; two at once are refused', () => {
    const one = withRegionalTable((table) => ({ ...table, globalSecondaryIndexes: { ...table.globalSecondaryIndexes, first: newIndex } }));
    const two = withRegionalTable((table) => ({ ...table, globalSecondaryIndexes: { ...table.globalSecondaryIndexes, first: newIndex, second: newIndex } }));
    expect(upgradeProblems(deployed, one)).toEqual([]);
    expect(upgradeProblems(deployed, two)).toEqual([expect.stringMatching(/2 indexes added at once \(first, second\)\. CloudFormation creates or deletes one .* Add one per release/)]);
  });

  it('a local secondary index added, changed or removed is refused: each replaces the table with an empty one', () => {
    // Prepare
    const withLocal = withRegionalTable((table) => ({ ...table, localSecondaryIndexes: { byStatus: { ...newIndex, keySchema: [...table.keySchema.slice(0, 1), { attributeName: 'status', keyType: 'RANGE' as const }] } } }));
    const reprojected = structuredClone(withLocal);
    const [local] = Object.values(reprojected[REGIONAL_STACKS] ?? {}).map((table) => table.localSecondaryIndexes['byStatus']);
    if (!local) throw new Error('no local index');
    local.projection = { type: 'ALL' };
    // Act, Assess
    expect(upgradeProblems(deployed, withLocal)).toEqual([expect.stringMatching(/changed its local secondary indexes \(were none; are 'byStatus' key pk S HASH, status \? RANGE, projection KEYS_ONLY\)\. .* replaces the table/)]);
    expect(upgradeProblems(withLocal, reprojected)).toEqual([expect.stringMatching(/'byStatus' .*KEYS_ONLY; are 'byStatus' .*projection ALL\)/)]);
    expect(upgradeProblems(withLocal, deployed)).toEqual([expect.stringMatching(/are none\)\. A local index exists only as its table was created/)]);
  });

  it("the TTL attribute renamed or dropped is refused (items already written would never expire); a physical name given to the table is refused (it replaces it)", () => {
    const renamedTtl = withRegionalTable((table) => ({ ...table, timeToLiveAttribute: 'ttl' }));
    const withoutTtl = withRegionalTable(({ timeToLiveAttribute: _dropped, ...table }) => table);
    const named = withRegionalTable((table) => ({ ...table, tableName: 'vigil-jobs' }));
    expect(upgradeProblems(deployed, renamedTtl)).toEqual([expect.stringMatching(/no longer expires items by 'expiresAt' \(is 'ttl'\)\. .* Keep 'expiresAt'/)]);
    expect(upgradeProblems(deployed, withoutTtl)).toEqual([expect.stringMatching(/no longer expires items by 'expiresAt' \(is no TTL\)/)]);
    expect(upgradeProblems(deployed, named)).toEqual([expect.stringMatching(/changed its name \(was generated, is vigil-jobs\)\. A new physical name replaces the table/)]);
  });

  it("a change of the table's own key, or of its logical id, is refused: either replaces the table with an empty one", () => {
    const rekeyed = withRegionalTable((table) => ({ ...table, keySchema: [{ attributeName: 'pk', keyType: 'HASH' }] }));
    const renamed: TableShapes = { ...deployed, [GATE_STACK_NAME]: { GateTableRenamed: Object.values(deployed[GATE_STACK_NAME] ?? {})[0] as TableShape } };
    expect(upgradeProblems(deployed, rekeyed)).toEqual([expect.stringMatching(/changed its key \(was pk S HASH, sk S RANGE, is pk S HASH\)\. A new key replaces the table/)]);
    expect(upgradeProblems(deployed, renamed)).toEqual([expect.stringMatching(/^Vigil-gate: table GateTable\w+ is gone .* Keep the table's construct id and place\./)]);
  });
});
