// extension/entry.cpp: the entry point SQLite calls when the extension is loaded.
//
//   sqlite3> .load ./build/datalog          (entry point sqlite3_datalog_init)
//
// Registers, on the loading connection: the `datalog` store table module, the `datalog_query`
// module and the `datalog_q` table-valued function, datalog_exec / datalog_explain /
// datalog_rules / datalog_drop_rule, the settings datalog_allow_graph_paths / datalog_limit,
// datalog_version(), and datalog_values (for SQL aggregates called from Datalog). The library stays loaded for the life of the process
// (SQLITE_OK_LOAD_PERMANENTLY): graph environments are shared process-wide and must outlive any
// one connection.
#define DATALOG_EXTENSION_MAIN
#include "extension/sqlite_api.h"
SQLITE_EXTENSION_INIT1

#include <new>

#include "extension/connection_context.h"
#include "extension/datalog_functions.h"
#include "extension/query_vtab.h"
#include "extension/settings_functions.h"
#include "extension/store_vtab.h"
#include "extension/value_list_vtab.h"
#include "extension/version.h"
#include "include/datalog.h"  // the declaration applications see matches this definition

namespace {

void datalog_version_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  sqlite3_result_text(ctx, datalog::ext::kVersion, -1, SQLITE_STATIC);
}

void destroy_context(void* p) { delete static_cast<datalog::ext::ConnectionContext*>(p); }

int register_all(sqlite3* db, char** err) {
  if (sqlite3_libversion_number() < 3038000) {
    *err = sqlite3_mprintf("datalog: needs SQLite 3.38 or newer, this is %s", sqlite3_libversion());
    return SQLITE_ERROR;
  }
  auto* context = new (std::nothrow) datalog::ext::ConnectionContext(db);
  if (!context) return SQLITE_NOMEM;
  // The store module owns the context: SQLite destroys it with the module, when the connection
  // closes (and also when registration fails).
  int rc = datalog::ext::register_store_module(db, context, destroy_context);
  if (rc == SQLITE_OK) rc = datalog::ext::register_query_modules(db, context);
  if (rc == SQLITE_OK) rc = datalog::ext::register_datalog_functions(db, context);
  if (rc == SQLITE_OK) rc = datalog::ext::register_settings_functions(db, context);
  if (rc == SQLITE_OK) rc = datalog::ext::register_value_list_module(db);
  if (rc != SQLITE_OK) return rc;
  return sqlite3_create_function_v2(db, "datalog_version", 0,
                                    SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, nullptr,
                                    datalog_version_fn, nullptr, nullptr, nullptr);
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int sqlite3_datalog_init(
    sqlite3* db, char** err, const sqlite3_api_routines* api) {
  SQLITE_EXTENSION_INIT2(api);
  try {
    const int rc = register_all(db, err);
#ifdef SQLITE_CORE
    return rc;  // linked in (sqlite3_auto_extension): any code but SQLITE_OK fails the open
#else
    return rc == SQLITE_OK ? SQLITE_OK_LOAD_PERMANENTLY : rc;
#endif
  } catch (...) {
    return SQLITE_NOMEM;
  }
}
