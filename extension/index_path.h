// extension/index_path.h: where a store table's graph file may be.
//
// A table's arguments are stored in the database's schema, and a database file may come from
// someone else (README, "Threat model"). So the file a table names is confined the way SQLite
// confines what a schema can do:
// - A relative name is relative to the folder of the table's database; a table of the temp
//   schema resolves against the main database, as main's tables do (never the process's
//   working directory, unless main has no file either).
// - Unless the application allows any path on its connection (datalog_allow_graph_paths(1),
//   a direct-only function no schema can call), the graph must stay inside that folder: no
//   absolute path, no '..', no symbolic link leading out of it.
// - The graph is never one of the connection's database files or their journals.
#pragma once

#include <string>

#include "extension/sqlite_api.h"

namespace datalog::ext {

// The index of table `table` of the database at database_path, when the table names no file:
// "app.db" + "g" -> "app.db-g.graph". Each database and table has its own ("data.db" and
// "data.sqlite" never share one). Bytes of the table name outside [A-Za-z0-9_] are written as
// %XX, so no name reaches another folder.
std::string index_path_beside(const std::string& database_path, const std::string& table);

// A file's identity, "device:inode" (empty when it cannot be read): which copy of a database an
// index was made for.
std::string file_identity(const std::string& path);

// A new empty file for a private temporary graph in $TMPDIR (or /tmp); empty when it cannot be
// made (*folder then names where it was tried).
std::string make_temp_graph_file(std::string* folder);

// The graph file of a table of `schema` given as `file` (empty: none given). *path is empty for
// a private temporary graph (a database without a file and no name given). On a refusal returns
// false with the reason in *error; nothing is touched on disk.
bool resolve_graph_path(sqlite3* db, const std::string& schema, const std::string& table,
                        const std::string& file, bool any_folder, std::string* path,
                        std::string* error);

}  // namespace datalog::ext
