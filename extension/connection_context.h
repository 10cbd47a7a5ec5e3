// extension/connection_context.h: what the extension keeps per SQLite connection.
//
// Created when the extension is loaded into a connection and destroyed when the connection
// closes (it is the module's client data). It shares one GraphSession per graph among the
// connection's tables, and keeps the private temporary graphs of `:memory:` databases alive
// for as long as the connection (a table reconnected after a schema reset finds its graph).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "engine/eval/eval_context.h"
#include "extension/graph_session.h"
#include "extension/parsed_scripts.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

class ConnectionContext {
 public:
  explicit ConnectionContext(sqlite3* db) : db_(db) {}
  sqlite3* db() const { return db_; }

  // The session for env on this connection (shared by every table naming that graph).
  std::shared_ptr<GraphSession> session_for(const std::shared_ptr<store::GraphEnv>& env,
                                            std::chrono::milliseconds busy_timeout);

  // Store tables by name, so SQL functions can name a graph by its table ("g" or "main.g").
  // owner is the table object: after a schema change (another connection's DDL) SQLite
  // connects a new object first and disconnects the stale one later, and that late
  // disconnect must not remove the new object's entry.
  // limits: the table's max_results / max_derived_facts arguments (nullopt: not given).
  struct TableLimits {
    std::optional<std::int64_t> max_results, max_derived_facts, max_memory_mb;
  };
  void register_table(const std::string& schema, const std::string& table, const void* owner,
                      const std::shared_ptr<GraphSession>& session, TableLimits limits = {});
  void unregister_table(const std::string& schema, const std::string& table, const void* owner);
  // The session of the store table `name` ("table" or "schema.table"); connects the table first
  // when SQLite has not yet. On failure returns null with a message in *error.
  // *limits (when given): the result limits of queries on that table's graph.
  std::shared_ptr<GraphSession> session_of_table(const std::string& name, std::string* error,
                                                 std::string* qualified = nullptr,
                                                 eval::Limits* limits = nullptr);
  // The same for a caller that asks on every call (a query table's xFilter): *remembered keeps
  // the answer for `name`, used again while no table has registered or left and no limit was set.
  struct TableLookup {
    std::uint64_t generation = 0;
    std::string name;
    std::weak_ptr<GraphSession> session;
    TableLimits limits;
  };
  std::shared_ptr<GraphSession> session_of_table(const std::string& name, TableLookup* remembered,
                                                 std::string* error, eval::Limits* limits);

  // The connection's result limits (datalog_limit): where set they win over the tables'; a
  // query's own :max-results wins over both. 0 means no limit. Returns false for an unknown name.
  bool set_limit(const std::string& name, std::optional<std::int64_t> value,
                 std::optional<std::int64_t>* before);
  bool get_limit(const std::string& name, std::optional<std::int64_t>* value);
  // The limit write_memory_mb: how many bytes of changed index pages a large transaction holds
  // before it commits the index part way (store::WriteTxn::commit_interim; docs/STORAGE.md,
  // "Large transactions commit the index in parts"); SIZE_MAX for none (0).
  static constexpr std::int64_t kDefaultWriteMemoryMb = GraphSession::kDefaultWriteMemoryMb;
  std::size_t write_page_bytes() const;

  // Whether the application allowed graphs outside the database's folder on this connection
  // (datalog_allow_graph_paths; extension/index_path.h).
  bool any_graph_path() const { return any_graph_path_; }
  void allow_any_graph_path(bool allow) { any_graph_path_ = allow; }

  // The temporary graph of table `schema.table` of a database without a file, if made before.
  std::string temp_graph_path(const std::string& qualified_table) const;
  void keep_temp_graph(const std::string& qualified_table, std::shared_ptr<store::GraphEnv> env);
  void forget_temp_graph(const std::string& qualified_table);

  // datalog_exec's scripts, parsed once per text.
  ParsedScripts& parsed_scripts() { return parsed_scripts_; }

 private:
  sqlite3* db_;
  bool any_graph_path_ = false;
  ParsedScripts parsed_scripts_;
  // By index path: a session outlives the replacement of a damaged index at the same path.
  std::map<std::string, std::weak_ptr<GraphSession>> sessions_;
  std::map<std::string, std::shared_ptr<store::GraphEnv>> temp_graphs_;
  struct RegisteredTable {
    const void* owner;
    std::weak_ptr<GraphSession> session;
    TableLimits limits;
  };
  TableLimits connection_limits_;
  std::optional<std::int64_t> write_memory_mb_;
  std::optional<std::int64_t>* limit_slot(const std::string& name);  // null for an unknown name
  std::map<std::string, RegisteredTable> tables_;  // "schema.table" (lowercase)
  std::uint64_t generation_ = 1;  // moves on every change of tables_ or connection_limits_
  void fill_limits(const TableLimits& table, eval::Limits* limits) const;
};

}  // namespace datalog::ext
