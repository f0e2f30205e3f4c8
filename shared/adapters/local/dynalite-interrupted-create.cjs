'use strict';
// dynalite creates a table in two LevelDB writes: the table as CREATING, then, createTableMs later (0
// in the local cloud), the table as ACTIVE. A process killed in between (a kill -9 or a Ctrl-C of the
// first `npm start`) left the table CREATING on disk for good: dynalite refuses every item call on it
// and refuses to delete it, and the next start waited for it in vain and gave up, on every start after.
//
// A dynalite that opens its data dir has no create of its own under way, so every table it finds
// CREATING is one whose process died: it is made ACTIVE as the second write would have made it, before
// the store answers for any table. Installed once per thread that serves dynalite (dynalite-server.ts).
const path = require('node:path');

function installInterruptedCreateRecovery(dynalitePath) {
  const db = require(path.join(path.dirname(dynalitePath), 'db'));
  if (db.create.vigilRecovery) return;
  const create = db.create;
  const recovering = function (options) {
    const store = create(options);
    const finished = finishInterruptedCreates(store.tableDb);
    const getTable = store.getTable;
    store.getTable = function (name, checkStatus, cb) {
      finished.then(() => getTable(name, checkStatus, cb));
    };
    return store;
  };
  recovering.vigilRecovery = true;
  db.create = recovering;
}

/** Writes ACTIVE every table stored CREATING; settles (never rejects) once written. */
function finishInterruptedCreates(tableDb) {
  return new Promise((resolve) => {
    const interrupted = [];
    tableDb
      .createValueStream()
      .on('data', (table) => {
        if (table && typeof table === 'object' && table.TableStatus === 'CREATING') interrupted.push(table);
      })
      .on('error', () => resolve())
      .on('end', () => {
        let left = interrupted.length;
        if (left === 0) return resolve();
        for (const table of interrupted) {
          table.TableStatus = 'ACTIVE';
          for (const index of table.GlobalSecondaryIndexes || []) index.IndexStatus = 'ACTIVE';
          if (table.BillingModeSummary) table.BillingModeSummary.LastUpdateToPayPerRequestDateTime = table.CreationDateTime;
          tableDb.put(table.TableName, table, () => {
            if (--left === 0) resolve();
          });
        }
      });
  });
}

module.exports = { installInterruptedCreateRecovery };
