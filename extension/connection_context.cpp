#include "extension/connection_context.h"

#include "extension/sql_values.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include <fmt/format.h>

namespace datalog::ext {

std::shared_ptr<GraphSession> ConnectionContext::session_for(
    const std::shared_ptr<store::GraphEnv>& env, std::chrono::milliseconds busy_timeout) {
  auto& slot = sessions_[env->path()];
  if (auto existing = slot.lock()) return existing;
  auto session = std::make_shared<GraphSession>(env, busy_timeout);
  slot = session;
  return session;
}

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// tables_' key of "table" or "schema.table".
std::string table_key(const std::string& name) {
  return lower(name.find('.') == std::string::npos ? "main." + name : name);
}

}  // namespace

void ConnectionContext::register_table(const std::string& schema, const std::string& table,
                                       const void* owner, const std::shared_ptr<GraphSession>& session,
                                       TableLimits limits) {
  tables_[lower(schema + "." + table)] = RegisteredTable{owner, session, limits};
  if (session) session->set_write_page_bytes(write_page_bytes());
  ++generation_;
}

std::optional<std::int64_t>* ConnectionContext::limit_slot(const std::string& name) {
  if (name == "max_results") return &connection_limits_.max_results;
  if (name == "max_derived_facts") return &connection_limits_.max_derived_facts;
  if (name == "max_memory_mb") return &connection_limits_.max_memory_mb;
  if (name == "write_memory_mb") return &write_memory_mb_;
  return nullptr;
}

std::size_t ConnectionContext::write_page_bytes() const {
  const std::int64_t mb = write_memory_mb_.value_or(kDefaultWriteMemoryMb);
  constexpr std::int64_t kMaxMb = std::int64_t{1} << 40;  // no overflow below
  return mb == 0 || mb > kMaxMb ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(mb) << 20;
}

bool ConnectionContext::get_limit(const std::string& name, std::optional<std::int64_t>* value) {
  std::optional<std::int64_t>* slot = limit_slot(name);
  if (slot) *value = *slot;
  return slot != nullptr;
}

bool ConnectionContext::set_limit(const std::string& name, std::optional<std::int64_t> value,
                                  std::optional<std::int64_t>* before) {
  std::optional<std::int64_t>* slot = limit_slot(name);
  if (!slot) return false;
  *before = *slot;
  *slot = value;
  if (slot == &write_memory_mb_) {
    for (auto& [key, registered] : tables_) {
      if (auto session = registered.session.lock()) session->set_write_page_bytes(write_page_bytes());
    }
  }
  ++generation_;
  return true;
}

void ConnectionContext::unregister_table(const std::string& schema, const std::string& table,
                                         const void* owner) {
  const auto it = tables_.find(lower(schema + "." + table));
  if (it != tables_.end() && it->second.owner == owner) tables_.erase(it);
  ++generation_;
}

namespace {

// The limit in force: the connection's, else the table's, else the default; 0 is none.
std::int64_t effective_limit(std::optional<std::int64_t> connection, std::optional<std::int64_t> table,
                             std::int64_t fallback) {
  const std::int64_t n = connection ? *connection : table ? *table : fallback;
  return n == 0 ? std::numeric_limits<std::int64_t>::max() : n;
}

// The memory budget in bytes (0: none): the connection's or the table's max_memory_mb, else the
// default; SQLite's heap limits, where the application set them, bound it too.
std::int64_t memory_budget(std::optional<std::int64_t> connection, std::optional<std::int64_t> table,
                           std::int64_t default_bytes) {
  const std::int64_t mb = effective_limit(connection, table, default_bytes >> 20);
  std::int64_t bytes = mb > (std::numeric_limits<std::int64_t>::max() >> 20) ? 0 : mb << 20;
  for (const sqlite3_int64 heap : {sqlite3_hard_heap_limit64(-1), sqlite3_soft_heap_limit64(-1)}) {
    if (heap > 0 && (bytes == 0 || heap < bytes)) bytes = heap;
  }
  return bytes;
}

}  // namespace

std::shared_ptr<GraphSession> ConnectionContext::session_of_table(const std::string& name,
                                                                  std::string* error,
                                                                  std::string* qualified,
                                                                  eval::Limits* limits) {
  const auto dot = name.find('.');
  const std::string schema = dot == std::string::npos ? "main" : name.substr(0, dot);
  const std::string table = dot == std::string::npos ? name : name.substr(dot + 1);
  const std::string key = table_key(name);
  if (qualified) *qualified = quote_identifier(schema) + "." + quote_identifier(table);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto it = tables_.find(key);
    if (it != tables_.end()) {
      if (auto session = it->second.session.lock()) {
        if (limits) fill_limits(it->second.limits, limits);
        return session;
      }
    }
    if (attempt == 1) break;
    // SQLite connects a virtual table on first use: use it once, without reading anything.
    const std::string sql = fmt::format("SELECT 1 FROM {}.{} WHERE 0", quote_identifier(schema),
                                        quote_identifier(table));
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      *error = fmt::format("no graph table named '{}' ({})", name, sqlite3_errmsg(db_));
      sqlite3_finalize(stmt);
      return nullptr;
    }
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
  }
  *error = fmt::format("'{}' is not a datalog store table (CREATE VIRTUAL TABLE {} USING datalog)",
                       name, table);
  return nullptr;
}

void ConnectionContext::fill_limits(const TableLimits& table, eval::Limits* limits) const {
  const eval::Limits defaults;
  limits->max_results =
      effective_limit(connection_limits_.max_results, table.max_results, defaults.max_results);
  limits->max_derived_facts = effective_limit(connection_limits_.max_derived_facts,
                                              table.max_derived_facts, defaults.max_derived_facts);
  limits->max_memory_bytes =
      memory_budget(connection_limits_.max_memory_mb, table.max_memory_mb, defaults.max_memory_bytes);
}

std::shared_ptr<GraphSession> ConnectionContext::session_of_table(const std::string& name,
                                                                  TableLookup* remembered,
                                                                  std::string* error,
                                                                  eval::Limits* limits) {
  if (remembered->generation == generation_ && remembered->name == name) {
    if (auto session = remembered->session.lock()) {
      fill_limits(remembered->limits, limits);  // SQLite's heap limits may have moved
      return session;
    }
  }
  auto session = session_of_table(name, error, nullptr, limits);
  if (!session) return nullptr;
  // Connecting the table on first use registered it: look its entry up as it is now.
  const auto it = tables_.find(table_key(name));
  if (it != tables_.end()) {
    *remembered = TableLookup{generation_, name, it->second.session, it->second.limits};
  }
  return session;
}

std::string ConnectionContext::temp_graph_path(const std::string& qualified_table) const {
  auto it = temp_graphs_.find(qualified_table);
  return it == temp_graphs_.end() ? std::string() : it->second->path();
}

void ConnectionContext::keep_temp_graph(const std::string& qualified_table,
                                        std::shared_ptr<store::GraphEnv> env) {
  temp_graphs_[qualified_table] = std::move(env);
}

void ConnectionContext::forget_temp_graph(const std::string& qualified_table) {
  temp_graphs_.erase(qualified_table);
}

}  // namespace datalog::ext
