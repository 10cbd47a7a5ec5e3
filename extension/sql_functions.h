// extension/sql_functions.h: the SQL functions of the connection, callable from Datalog
// (LANGUAGE.md §16, issue 4).
//
//   [(email? ?v)]  [(strftime "%Y" ?t) ?year]     a scalar SQL function, in expressions
//   [:find (geomean ?x) ...]                        an aggregate SQL function, as an aggregate
//   [:find ?e (total ?x :over (:order-by ?e)) ...]  an aggregate SQL function, as a window
//
// Any function the connection knows counts: SQLite's built-ins, other extensions', and those
// the application registered with sqlite3_create_function. A name the engine knows (a
// built-in of the dialect) wins; `sql/name` reaches the SQL function of a shadowed name
// (`[(sql/abs ?x) ?y]`, `(sql/sum ?x)`). Functions named datalog_* run Datalog themselves and
// cannot be called from it.
//
// Values cross as everywhere in SQL (sql_values.h): a Datalog value is passed in its SQL form,
// and a result comes back by storage class (INTEGER -> integer, REAL -> float, TEXT ':kw' ->
// keyword, other TEXT -> string, BLOB -> bytes, NULL -> nil). In a filter clause, a result of
// 0, 0.0, NULL or any text is false, as for built-in predicates. An error raised by the SQL
// function fails the query with its message.
//
// Aggregates: the group's non-nil values go through `SELECT f(value) FROM datalog_values(?)`
// (value_list_vtab.h). Windows: every row's value, nil included, through
// `f(value) OVER (ORDER BY ord ROWS UNBOUNDED PRECEDING)` — the same running frame as the
// built-in window functions. An aggregate registered without window support (xInverse/xValue)
// is run over each prefix instead, which costs O(n^2) per partition.
//
// Trust (README, "Threat model"): Datalog typed by the application (datalog_exec, datalog_q,
// datalog_explain, a datalog_query table of the temp schema) may call any function, as SQL may.
// Datalog that comes from elsewhere may call only what SQLite lets a schema call: never a
// SQLITE_DIRECTONLY function, and with trusted_schema OFF only SQLITE_INNOCUOUS ones. That is
// the query of a datalog_query table in a database's schema (checked at each call) and the body
// of every rule stored in a graph file (checked before the query runs, host_calls.h).
//
// One SqlFunctions serves one query evaluation; its statements are prepared on first use and
// finalized with it. Not thread-safe (neither is the evaluation).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/eval/eval_context.h"
#include "engine/eval/query_runner.h"
#include "extension/interrupt_probe.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

// Where the query being run comes from. schema_object is empty for Datalog typed by the
// application; else it names the schema object that holds the query, for messages.
struct QueryOrigin {
  std::string schema_object;  // "datalog_query table main.q"
  bool from_schema() const { return !schema_object.empty(); }
};

class SqlFunctions final : public eval::ExternalFunctions {
 public:
  // origin: where the query comes from, outliving this object; null for the application's own.
  explicit SqlFunctions(sqlite3* db, const QueryOrigin* origin = nullptr) : db_(db), origin_(origin) {}
  ~SqlFunctions() override;
  SqlFunctions(const SqlFunctions&) = delete;
  SqlFunctions& operator=(const SqlFunctions&) = delete;

  Status call(GraphReader& graph, const std::string& name, const std::vector<Value>& args, bool* found,
              std::optional<Value>* result) override;
  Status make_aggregate(GraphReader& graph, const std::string& name, bool* found,
                        std::unique_ptr<functions::Accumulator>* out) override;
  Status window(GraphReader& graph, const std::string& name, std::span<const Value> args, bool* found,
                std::vector<Value>* out) override;

  Status check_rule_call(const std::string& rule, const std::string& name, std::size_t arity) override;

  // Runs `SELECT f(value) FROM datalog_values(?1)` over values; the aggregate's result.
  Status aggregate_over(GraphReader& graph, const std::string& name, std::span<const Value> values,
                        Value* out);

 private:
  // What pragma_function_list says of a name: its forms (type 's', 'a' or 'w') and arities.
  struct Overload {
    char type;
    int arguments;  // -1: any number
    int flags;      // SQLITE_DIRECTONLY, SQLITE_INNOCUOUS, ...
  };
  Status overloads(const std::string& name, const std::vector<Overload>** out);
  // Whether Datalog from `caller` may call the overload of name that SQLite would pick for
  // `arguments` arguments of kind `aggregate` (an aggregate or window) or not (a scalar).
  Status check_allowed(const std::string& caller, const std::string& name, bool aggregate, int arguments);
  Status statement(const std::string& sql, sqlite3_stmt** out);
  Status step_error(const std::string& name, int rc) const;

  sqlite3* db_;
  const QueryOrigin* origin_;
  std::unordered_map<std::string, std::vector<Overload>> overloads_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

// The options of one evaluation run from SQL: these limits, "now", stopped by probe, calling
// SQL functions through sql_functions (both must outlive the run).
eval::RunOptions run_options(InterruptProbe& probe, SqlFunctions& sql_functions, const eval::Limits& limits);

}  // namespace datalog::ext
