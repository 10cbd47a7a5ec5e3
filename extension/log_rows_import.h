// extension/log_rows_import.h: writing a whole history into an empty graph as log rows, the
// way datalog_import_v1 and datalog_import of an EDN history do.
//
// The rows keep their counters and times exactly (they are the log, not writes through the
// session). They go in through one SQL transaction of the call's own (a savepoint, so the
// caller must not be inside BEGIN ... COMMIT): every statement in it is an INSERT, which SQLite
// rolls back whole, transaction and all, when it is interrupted. before_release runs last inside
// that transaction (the history import builds the index there, so hostile records fail the
// import, not the next reader); any error, an interrupt included, leaves the table as it was.
#pragma once

#include <functional>
#include <string>

#include "extension/graph_log.h"
#include "extension/sqlite_api.h"
#include "lmdb_store/log_records.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext {

using LogRowSink = std::function<store::Status(store::LogRow& row)>;
// Calls the sink once per row, in log order.
using LogRowSource = std::function<store::Status(const LogRowSink& sink)>;

// Runs sql on db; an error becomes a Status prefixed with `who` ("datalog_import_v1: ...").
store::Status exec_sql(sqlite3* db, const std::string& sql, const std::string& who);

store::Status import_log_rows(sqlite3* db, GraphLog& log, const std::string& savepoint,
                              const LogRowSource& source,
                              const std::function<store::Status()>& before_release);

}  // namespace datalog::ext
