// extension/store_vtab.h: the `datalog` module: a graph's datoms as an SQL table.
//
//   CREATE VIRTUAL TABLE g USING datalog;             -- app.db -> app.graph
//   INSERT INTO g(e, a, v) VALUES (':alice', ':person/name', 'Alice');
//   INSERT INTO g(e, a, v, vtype) VALUES (':alice', ':friend', ':bob', 'ref');
//   SELECT v FROM g WHERE e = ':alice' AND a = ':person/name';     -- EAVT
//   SELECT * FROM g WHERE as_of = 3 AND valid_at = 'any';           -- time travel
//   DELETE FROM g WHERE e = ':alice' AND a = ':friend';              -- retracts, keeps history
//
// Columns: e, a, v, vtype, tx, tx_time, valid_from, valid_to, and HIDDEN as_of, valid_at, datom.
// Rows are the datoms visible in the view the hidden columns select: by default the current
// state, valid now. `valid_at = 'any'` shows every valid-time window.
//
// How it works: rows come from DatomScans over key ranges of one index, chosen by
// store_plan.h; writes go to the connection's GraphSession, whose one LMDB write transaction
// follows SQLite's (xBegin, xSync commits, savepoints nest). `datom` is the primary key (the
// table is WITHOUT ROWID): the EAVT key of the row, which DELETE and UPDATE use to find the fact.
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

// Registers the module on db. context is the connection's ConnectionContext; destroy (called by
// SQLite when the connection closes) frees it.
int register_store_module(sqlite3* db, void* context, void (*destroy)(void*));

}  // namespace datalog::ext
