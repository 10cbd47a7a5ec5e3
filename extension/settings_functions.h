// extension/settings_functions.h: the connection's settings, as SQL functions the application
// calls (never a schema: they are direct-only).
//
//   SELECT datalog_allow_graph_paths(1);         graphs outside the database's folder (index_path.h)
//   SELECT datalog_limit('max_results', 5000000); a query limit for every graph (README, "Limits")
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

class ConnectionContext;

int register_settings_functions(sqlite3* db, ConnectionContext* context);

}  // namespace datalog::ext
