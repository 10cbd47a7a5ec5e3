// extension/import_v1.h: datalog_import_v1(table, file), a graph of the first storage format
// copied, history included, into a new store table.
//
//   CREATE VIRTUAL TABLE g2 USING datalog;
//   SELECT datalog_import_v1('g2', 'app.graph');   -- the number of transactions imported
//
// In the first storage format a graph's file held the only copy of its facts; a table of that
// format answers with an error naming this function (GraphSession::check_log_and_owner). The
// file is read as log rows (lmdb_store/v1_graph_reader.h) that rebuild the same graph: the same
// counters, times, entity ids, facts, valid intervals and rules. They are written into the
// table's log, which must be empty, in one SQL transaction of the function's own (a savepoint,
// so the call must not be inside BEGIN ... COMMIT): any error, an interrupt included, leaves the
// table as it was. The table's index is then built from the log. The file is named as a table's
// file argument is (index_path.h: relative to the database's folder, confined unless
// datalog_allow_graph_paths(1)), and only read. Direct-only, as it names a file.
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

void datalog_import_v1(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

}  // namespace datalog::ext
