'use strict';
// dynalite rewrites every index entry of an item on each write; DynamoDB writes an index only when
// the item's entry in it (its keys or projected attributes) changes. Maintaining only the indexes
// whose entry changed gives the same index contents, for one LevelDB write instead of two on a
// progress report. Installed once per thread that serves dynalite (dynalite-server.ts).
const path = require('node:path');

function installIndexUpkeep(dynalitePath) {
  const db = require(path.join(path.dirname(dynalitePath), 'db'));
  if (db.updateIndexes.vigilUpkeep) return;
  const rewriteEveryIndex = db.updateIndexes;
  const entryIn = (index, item, table) => (item ? db.getIndexActions([index], null, item, table).puts[0] : undefined);
  const unchanged = (index, before, after, table) => {
    const was = entryIn(index, before, table);
    const is = entryIn(index, after, table);
    if (!was || !is) return !was && !is;
    return was.key === is.key && JSON.stringify(was.item) === JSON.stringify(is.item);
  };
  const upkeep = function (store, table, existingItem, item, cb) {
    const changed = (indexes) => (indexes || []).filter((index) => !unchanged(index, existingItem, item, table));
    const withChangedIndexes = {
      ...table,
      LocalSecondaryIndexes: changed(table.LocalSecondaryIndexes),
      GlobalSecondaryIndexes: changed(table.GlobalSecondaryIndexes),
    };
    return rewriteEveryIndex(store, withChangedIndexes, existingItem, item, cb);
  };
  upkeep.vigilUpkeep = true;
  db.updateIndexes = upkeep;
}

module.exports = { installIndexUpkeep };
