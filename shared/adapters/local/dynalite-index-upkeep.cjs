'use strict';
// Two changes to how dynalite keeps its secondary indexes, installed once per thread that serves
// dynalite (dynalite-server.ts):
//
// - Only the indexes whose entry for the item changed are written. dynalite rewrites every index
//   entry of an item on each write; DynamoDB writes an index only when the item's entry in it (its
//   keys or projected attributes) changes. Same index contents, one LevelDB write instead of two on
//   a progress report.
// - An item and its index entries are written in one LevelDB batch, which LevelDB applies whole or
//   not at all. dynalite deletes the old entries, puts the new ones, then writes the item, each a
//   write of its own: a process killed in between kept a RUNNING job whose `timers` entry was gone,
//   and the restart re-arm and the sweep, which read that index, never woke it again.
//
// Every sub-database of dynalite is a key prefix in one LevelDB (`store.db`), so a batch there can
// hold both. The item's own write follows `updateIndexes`'s callback at once, under the item's lock
// (putItem, updateItem, deleteItem), so the index writes are held until then and folded into it.
const path = require('node:path');

function installIndexUpkeep(dynalitePath) {
  const db = require(path.join(path.dirname(dynalitePath), 'db'));
  if (db.updateIndexes.vigilUpkeep) return;
  const entryIn = (index, item, table) => (item ? db.getIndexActions([index], null, item, table).puts[0] : undefined);
  const unchanged = (index, before, after, table) => {
    const was = entryIn(index, before, table);
    const is = entryIn(index, after, table);
    if (!was || !is) return !was && !is;
    return was.key === is.key && JSON.stringify(was.item) === JSON.stringify(is.item);
  };
  const upkeep = function (store, table, existingItem, item, cb) {
    if (!existingItem && !item) return cb();
    const deletes = [];
    const puts = [];
    for (const type of ['Local', 'Global']) {
      const changed = (table[`${type}SecondaryIndexes`] || []).filter((index) => !unchanged(index, existingItem, item, table));
      const actions = db.getIndexActions(changed, existingItem, item, table);
      const prefix = (index) => `index-${type.toLowerCase()}~${table.TableName}~${index}~`;
      for (const action of actions.deletes) deletes.push({ type: 'del', key: prefix(action.index) + action.key });
      for (const action of actions.puts) puts.push({ type: 'put', key: prefix(action.index) + action.key, value: action.item });
    }
    if (deletes.length + puts.length > 0) heldFor(store, table.TableName).set(db.createKey(item || existingItem, table), [...deletes, ...puts]);
    cb();
  };
  upkeep.vigilUpkeep = true;
  db.updateIndexes = upkeep;
}

/** The index writes held for each item key of a table, flushed with that item's own write. */
function heldFor(store, tableName) {
  const itemDb = store.getItemDb(tableName);
  if (itemDb.vigilHeld) return itemDb.vigilHeld;
  const held = new Map();
  const itemPrefix = `item-${tableName}~`;
  const withHeld = (key, itemWrite, writeAlone) => (callback) => {
    const indexWrites = held.get(key);
    if (!indexWrites) return writeAlone(callback);
    held.delete(key);
    store.db.batch([...indexWrites, { ...itemWrite, key: itemPrefix + key }], callback);
  };
  const put = itemDb.put;
  const del = itemDb.del;
  itemDb.put = (key, value, callback) => withHeld(key, { type: 'put', value }, (done) => put(key, value, done))(callback);
  itemDb.del = (key, callback) => withHeld(key, { type: 'del' }, (done) => del(key, done))(callback);
  itemDb.vigilHeld = held;
  return held;
}

module.exports = { installIndexUpkeep };
