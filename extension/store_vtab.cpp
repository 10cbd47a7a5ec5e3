// extension/store_vtab.cpp: the `datalog` module assembled from its callbacks (store_table.h).
#include "extension/store_vtab.h"

#include "extension/store_table.h"

namespace datalog::ext {

namespace {

using namespace store_table;

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 3;  // savepoints, shadow tables
  m.xCreate = store_create;
  m.xConnect = store_connect;
  m.xBestIndex = store_best_index;
  m.xDisconnect = store_disconnect;
  m.xDestroy = store_destroy;
  m.xOpen = store_open;
  m.xClose = store_close;
  m.xFilter = store_filter;
  m.xNext = store_next;
  m.xEof = store_eof;
  m.xColumn = store_column;
  m.xUpdate = store_update;
  m.xBegin = store_begin;
  m.xSync = store_sync;
  m.xCommit = store_commit;
  m.xRollback = store_rollback;
  m.xRename = store_rename;
  m.xSavepoint = store_savepoint;
  m.xRelease = store_release;
  m.xRollbackTo = store_rollback_to;
  m.xShadowName = store_shadow_name;
  return m;
}

const sqlite3_module kStoreModule = make_module();

}  // namespace

int register_store_module(sqlite3* db, void* context, void (*destroy)(void*)) {
  return sqlite3_create_module_v2(db, "datalog", &kStoreModule, context, destroy);
}

}  // namespace datalog::ext
