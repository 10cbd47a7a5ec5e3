// extension/io/io_functions.h: datalog_import and datalog_export, the SQL functions that move
// graph data between a store table and files (README "Import and export"; the format mapping is
// docs/IMPORT-EXPORT.md).
//
//   SELECT datalog_import('g', 'people.nt');           -- facts written (N-Triples, by extension)
//   SELECT datalog_import('g', 'dump.txt', 'csv');     -- the format named
//   SELECT datalog_export('g', 'backup.edn');          -- the whole history: facts written
//
// How it works:
// - Files are named as a table's graph file is (extension/index_path.h): relative to the store
//   table's database folder, and inside it unless the application ran
//   datalog_allow_graph_paths(1); never one of the connection's database files (nor, for an
//   export, the graph's index). Both functions are SQLITE_DIRECTONLY: no view, trigger or other
//   schema object can make the application read or write a file.
// - An import is all or nothing: it joins the caller's BEGIN ... COMMIT (a failure undoes only
//   the import) or is a transaction of its own; an error or sqlite3_interrupt leaves the graph
//   as it was. A history file (EDN export) goes into an empty table only, as log rows (outside
//   BEGIN ... COMMIT), so counters and times are the exported ones.
// - Files stream: an import reads a line at a time, an export writes as it scans one snapshot
//   into a temporary file renamed into place at the end. On a terminal, stderr shows progress.
// - Errors name the file and line: "datalog_import: data.nt line 17: unterminated IRI".
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

void datalog_import(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;
void datalog_export(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

}  // namespace datalog::ext
