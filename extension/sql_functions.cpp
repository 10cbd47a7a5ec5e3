#include "extension/sql_functions.h"

#include "engine/time_text.h"

#include <fmt/format.h>

#include "extension/query_arguments.h"
#include "extension/sql_values.h"
#include "extension/value_list_vtab.h"

namespace datalog::ext {

namespace {


IdentNamer namer_of(GraphReader& graph) {
  return [&graph](EntityId id, std::optional<Value>* out) { return graph.ident_of(id, out); };
}

bool runs_datalog(const std::string& name) {
  return name.size() > 8 && sqlite3_strnicmp(name.c_str(), "datalog_", 8) == 0;
}

// Resets a statement when the scope ends, so no statement stays active between calls.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~ResetOnExit() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

// The group's non-nil values, aggregated by the SQL function when the group is done.
class SqlAccumulator final : public functions::Accumulator {
 public:
  SqlAccumulator(SqlFunctions& functions, GraphReader& graph, std::string name)
      : functions_(functions), graph_(graph), name_(std::move(name)) {}

  Status add(const Value& v) override {
    if (!v.is(ValueKind::Nil)) values_.push_back(v);
    return Status::OK();
  }
  Status finish(std::optional<Value>* out) override {
    Value result;
    DATALOG_RETURN_IF_ERROR(functions_.aggregate_over(graph_, name_, values_, &result));
    *out = std::move(result);
    return Status::OK();
  }

 private:
  SqlFunctions& functions_;
  GraphReader& graph_;
  std::string name_;
  std::vector<Value> values_;
};

}  // namespace

SqlFunctions::~SqlFunctions() {
  for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
}

Status SqlFunctions::overloads(const std::string& name, const std::vector<Overload>** out) {
  auto it = overloads_.find(name);
  if (it == overloads_.end()) {
    sqlite3_stmt* stmt = nullptr;
    DATALOG_RETURN_IF_ERROR(statement(
        "SELECT type, narg, flags FROM pragma_function_list WHERE name = ?1 COLLATE NOCASE", &stmt));
    ResetOnExit reset(stmt);
    sqlite3_bind_text(stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
    std::vector<Overload> found;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      const auto* type = sqlite3_column_text(stmt, 0);
      found.push_back({type ? static_cast<char>(type[0]) : '?', sqlite3_column_int(stmt, 1),
                       sqlite3_column_int(stmt, 2)});
    }
    if (rc != SQLITE_DONE) return step_error("pragma_function_list", rc);
    it = overloads_.emplace(name, std::move(found)).first;
  }
  *out = &it->second;
  return Status::OK();
}

Status SqlFunctions::check_allowed(const std::string& caller, const std::string& name, bool aggregate,
                                   int arguments) {
  const std::vector<Overload>* forms = nullptr;
  DATALOG_RETURN_IF_ERROR(overloads(name, &forms));
  // SQLite prefers the overload of the exact arity to one that takes any number.
  const Overload* picked = nullptr;
  for (const Overload& o : *forms) {
    if ((o.type == 's') == aggregate) continue;
    if (o.arguments == arguments) picked = &o;
    if (o.arguments == -1 && !picked) picked = &o;
  }
  if (!picked) return Status::OK();  // not an SQL function of that shape: the call reports it
  if (picked->flags & SQLITE_DIRECTONLY) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("unsafe use of SQL function {}() in {}: it is direct-only "
                              "(SQLITE_DIRECTONLY), callable only from SQL or Datalog the "
                              "application runs itself",
                              name, caller));
  }
  int trusted_schema = 1;
  sqlite3_db_config(db_, SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &trusted_schema);
  if (!trusted_schema && !(picked->flags & SQLITE_INNOCUOUS)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("unsafe use of SQL function {}() in {}: trusted_schema is OFF and the "
                              "function is not SQLITE_INNOCUOUS",
                              name, caller));
  }
  return Status::OK();
}

Status SqlFunctions::check_rule_call(const std::string& rule, const std::string& name, std::size_t arity) {
  return check_allowed(fmt::format("rule '{}' (stored in the graph)", rule), name, false,
                       static_cast<int>(arity));
}

Status SqlFunctions::statement(const std::string& sql, sqlite3_stmt** out) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) {
    *out = it->second;
    return Status::OK();
  }
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    return Status(StatusCode::InvalidArgument, fmt::format("SQL function call `{}`: {}", sql, sqlite3_errmsg(db_)));
  }
  statements_.emplace(sql, stmt);
  *out = stmt;
  return Status::OK();
}

Status SqlFunctions::step_error(const std::string& name, int rc) const {
  if (rc == SQLITE_INTERRUPT) return Status(StatusCode::Interrupted, "interrupted");
  return Status(StatusCode::InvalidArgument, fmt::format("SQL function '{}' failed: {}", name, sqlite3_errmsg(db_)));
}

Status SqlFunctions::call(GraphReader& graph, const std::string& name, const std::vector<Value>& args,
                          bool* found, std::optional<Value>* result) {
  const std::vector<Overload>* forms = nullptr;
  DATALOG_RETURN_IF_ERROR(overloads(name, &forms));
  *found = !forms->empty();
  if (!*found) return Status::OK();
  if (runs_datalog(name)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("SQL function '{}' runs Datalog itself and cannot be called from Datalog", name));
  }
  const int n = static_cast<int>(args.size());
  bool scalar = false, arity_fits = false;
  for (const Overload& o : *forms) {
    if (o.type != 's') continue;
    scalar = true;
    arity_fits = arity_fits || o.arguments == n || o.arguments == -1;
  }
  if (!scalar) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("'{}' is an aggregate SQL function: use it in :find, as ({} ?x)", name, name));
  }
  if (!arity_fits) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("SQL function '{}' does not take {} argument{}", name, n, n == 1 ? "" : "s"));
  }
  if (origin_ && origin_->from_schema()) DATALOG_RETURN_IF_ERROR(check_allowed(origin_->schema_object, name, false, n));
  std::string sql = "SELECT " + quote_identifier(name) + "(";
  for (int i = 1; i <= n; ++i) sql += fmt::format("{}?{}", i > 1 ? ", " : "", i);
  sql += ")";
  sqlite3_stmt* stmt = nullptr;
  DATALOG_RETURN_IF_ERROR(statement(sql, &stmt));
  ResetOnExit reset(stmt);
  const IdentNamer name_of = namer_of(graph);
  for (int i = 0; i < n; ++i) {
    Status unnamed;
    if (bind_value(stmt, i + 1, args[static_cast<std::size_t>(i)], name_of, &unnamed) != SQLITE_OK) {
      if (!unnamed.ok()) return unnamed;
      return step_error(name, sqlite3_errcode(db_));
    }
  }
  const int rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW) return step_error(name, rc);
  *result = datalog_value_of(sqlite3_column_value(stmt, 0));
  return Status::OK();
}

Status SqlFunctions::make_aggregate(GraphReader& graph, const std::string& name, bool* found,
                                    std::unique_ptr<functions::Accumulator>* out) {
  const std::vector<Overload>* forms = nullptr;
  DATALOG_RETURN_IF_ERROR(overloads(name, &forms));
  *found = false;
  for (const Overload& o : *forms) {
    *found = *found || ((o.type == 'a' || o.type == 'w') && (o.arguments == 1 || o.arguments == -1));
  }
  if (!*found) return Status::OK();
  if (runs_datalog(name)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("SQL function '{}' runs Datalog itself and cannot be called from Datalog", name));
  }
  if (origin_ && origin_->from_schema()) DATALOG_RETURN_IF_ERROR(check_allowed(origin_->schema_object, name, true, 1));
  *out = std::make_unique<SqlAccumulator>(*this, graph, name);
  return Status::OK();
}

Status SqlFunctions::aggregate_over(GraphReader& graph, const std::string& name,
                                    std::span<const Value> values, Value* out) {
  sqlite3_stmt* stmt = nullptr;
  DATALOG_RETURN_IF_ERROR(statement("SELECT " + quote_identifier(name) + "(value) FROM datalog_values(?1)", &stmt));
  ValueList list{values, namer_of(graph)};
  ResetOnExit reset(stmt);  // before list goes: the statement holds a pointer to it
  sqlite3_bind_pointer(stmt, 1, &list, kValueListPointerType, nullptr);
  const int rc = sqlite3_step(stmt);
  if (rc != SQLITE_ROW) return step_error(name, rc);
  *out = datalog_value_of(sqlite3_column_value(stmt, 0));
  return Status::OK();
}

Status SqlFunctions::window(GraphReader& graph, const std::string& name, std::span<const Value> args,
                            bool* found, std::vector<Value>* out) {
  const std::vector<Overload>* forms = nullptr;
  DATALOG_RETURN_IF_ERROR(overloads(name, &forms));
  bool window_capable = false, aggregate = false;
  for (const Overload& o : *forms) {
    if (o.arguments != 1 && o.arguments != -1) continue;
    window_capable = window_capable || o.type == 'w';
    aggregate = aggregate || o.type == 'a';
  }
  *found = window_capable || aggregate;
  if (!*found) return Status::OK();
  if (runs_datalog(name)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("SQL function '{}' runs Datalog itself and cannot be called from Datalog", name));
  }
  if (origin_ && origin_->from_schema()) DATALOG_RETURN_IF_ERROR(check_allowed(origin_->schema_object, name, true, 1));
  // A window-capable function computes the running frame in one pass; a plain aggregate is run
  // once per prefix (SQLite refuses OVER for it).
  const std::string sql =
      window_capable
          ? "SELECT ord, " + quote_identifier(name) +
                "(value) OVER (ORDER BY ord ROWS UNBOUNDED PRECEDING) FROM datalog_values(?1)"
          : "SELECT o.ord, (SELECT " + quote_identifier(name) +
                "(i.value) FROM datalog_values(?1) i WHERE i.ord <= o.ord) FROM datalog_values(?1) o";
  sqlite3_stmt* stmt = nullptr;
  DATALOG_RETURN_IF_ERROR(statement(sql, &stmt));
  ValueList list{args, namer_of(graph)};
  ResetOnExit reset(stmt);  // before list goes: the statement holds a pointer to it
  sqlite3_bind_pointer(stmt, 1, &list, kValueListPointerType, nullptr);
  out->assign(args.size(), Value::nil());
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const sqlite3_int64 ord = sqlite3_column_int64(stmt, 0);
    if (ord >= 0 && static_cast<std::size_t>(ord) < out->size()) {
      (*out)[static_cast<std::size_t>(ord)] = datalog_value_of(sqlite3_column_value(stmt, 1));
    }
  }
  if (rc != SQLITE_DONE) return step_error(name, rc);
  return Status::OK();
}

eval::RunOptions run_options(InterruptProbe& probe, SqlFunctions& sql_functions, const eval::Limits& limits) {
  eval::RunOptions options;
  options.limits = limits;
  options.now_ms = now_ms();
  options.interrupted = [&probe] { return probe.interrupted(); };
  options.external = &sql_functions;
  return options;
}

}  // namespace datalog::ext
