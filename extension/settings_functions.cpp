#include "extension/settings_functions.h"

#include <cstdint>
#include <optional>
#include <string>

#include "extension/connection_context.h"
#include "extension/direct_only.h"
#include "extension/sql_values.h"

namespace datalog::ext {

namespace {

// datalog_allow_graph_paths(on): whether store tables connected from now on may open graphs
// outside their database's folder (extension/index_path.h). Direct-only, so a schema cannot
// call it. Returns the setting before the call.
void datalog_allow_graph_paths(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  const bool before = context->any_graph_path();
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
    sqlite3_result_error(ctx, "datalog: datalog_allow_graph_paths takes 1 (allow) or 0 (refuse)", -1);
    return;
  }
  context->allow_any_graph_path(sqlite3_value_int64(argv[0]) != 0);
  sqlite3_result_int(ctx, before ? 1 : 0);
}

// datalog_limit(name [, value]): the connection's limit `name` (max_results, max_derived_facts
// or max_memory_mb) for every query on any graph, over the store tables' arguments; a query's
// own :max-results still wins. write_memory_mb bounds the index pages a write of its own holds
// in memory (ConnectionContext::write_page_bytes). 0 is no limit, NULL unsets. Returns the setting
// before (NULL: unset).
void datalog_limit(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
  const std::string name(text_of(argv[0]));
  std::optional<std::int64_t> value, before;
  if (argc == 2 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 0) {
      sqlite3_result_error(ctx, "datalog: datalog_limit takes a number (of rows, or of MiB for "
                                "max_memory_mb and write_memory_mb; 0: no limit) or NULL", -1);
      return;
    }
    value = sqlite3_value_int64(argv[1]);
  }
  const bool known = argc == 1 ? context->get_limit(name, &before) : context->set_limit(name, value, &before);
  if (!known) {
    const std::string message =
        "datalog: unknown limit '" + name + "': expected max_results, max_derived_facts, max_memory_mb or write_memory_mb";
    sqlite3_result_error(ctx, message.c_str(), -1);
    return;
  }
  if (before) {
    sqlite3_result_int64(ctx, *before);
  } else {
    sqlite3_result_null(ctx);
  }
}

}  // namespace

int register_settings_functions(sqlite3* db, ConnectionContext* context) {
  // Direct-only: a schema must not widen what the connection allows.
  const DirectOnlyFunction functions[] = {
      {"datalog_allow_graph_paths", 1, datalog_allow_graph_paths},
      {"datalog_limit", 1, datalog_limit},
      {"datalog_limit", 2, datalog_limit},
  };
  return register_direct_only(db, context, functions);
}

}  // namespace datalog::ext
