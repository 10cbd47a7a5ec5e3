// extension/table_arguments.h: the arguments of CREATE VIRTUAL TABLE ... USING datalog(...).
//
//   USING datalog                       the graph beside the database: app.db -> app.graph;
//                                       a private temporary graph for :memory: and temp databases
//   USING datalog('people.graph')       a file in the database's folder (index_path.h says
//                                       where a graph may be)
//   USING datalog(file='x.graph', busy_timeout=2000, map_size_mb=1024)
//     busy_timeout  ms a writer waits for another writer before SQLITE_BUSY (default 5000)
//     map_size_mb   initial LMDB map size (default 65536; address space, not disk; it grows)
//     max_results, max_derived_facts   limits of queries on this graph (0: none; README "Limits")
//     max_memory_mb                     the memory a query on this graph may hold (0: none)
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "extension/sqlite_api.h"

namespace datalog::ext {

struct StoreTableOptions {
  std::string path;        // empty: a private temporary graph
  std::chrono::milliseconds busy_timeout{5000};
  std::size_t map_bytes = 0;  // 0: the store's default
  // Result limits of queries on this table's graph (0: none); nullopt: the defaults.
  std::optional<std::int64_t> max_results, max_derived_facts, max_memory_mb;
};

// Parses module arguments argv[0..argc) (SQLite's argv[3..]) of table `table` of `schema`;
// any_folder: the connection allows graphs outside the database's folder. On failure returns
// false with a message naming the bad argument.
bool parse_store_arguments(sqlite3* db, const char* schema, const char* table, int argc,
                           const char* const* argv, bool any_folder, StoreTableOptions* out,
                           std::string* error);

}  // namespace datalog::ext
