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
// One SqlFunctions serves one query evaluation; its statements are prepared on first use and
// finalized with it. Not thread-safe (neither is the evaluation).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/eval/eval_context.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

class SqlFunctions final : public eval::ExternalFunctions {
 public:
  explicit SqlFunctions(sqlite3* db) : db_(db) {}
  ~SqlFunctions() override;
  SqlFunctions(const SqlFunctions&) = delete;
  SqlFunctions& operator=(const SqlFunctions&) = delete;

  Status call(GraphReader& graph, const std::string& name, const std::vector<Value>& args, bool* found,
              std::optional<Value>* result) override;
  Status make_aggregate(GraphReader& graph, const std::string& name, bool* found,
                        std::unique_ptr<functions::Accumulator>* out) override;
  Status window(GraphReader& graph, const std::string& name, std::span<const Value> args, bool* found,
                std::vector<Value>* out) override;

  // Runs `SELECT f(value) FROM datalog_values(?1)` over values; the aggregate's result.
  Status aggregate_over(GraphReader& graph, const std::string& name, std::span<const Value> values,
                        Value* out);

 private:
  // What pragma_function_list says of a name: its forms (type 's', 'a' or 'w') and arities.
  struct Overload {
    char type;
    int arguments;  // -1: any number
  };
  Status overloads(const std::string& name, const std::vector<Overload>** out);
  Status statement(const std::string& sql, sqlite3_stmt** out);
  Status step_error(const std::string& name, int rc) const;

  sqlite3* db_;
  std::unordered_map<std::string, std::vector<Overload>> overloads_;
  std::unordered_map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace datalog::ext
