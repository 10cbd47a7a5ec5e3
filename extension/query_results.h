// extension/query_results.h: the rows of one query run, for a cursor of datalog_q or a
// datalog_query table.
//
// The engine decides how the query runs (engine/eval/query_execution.h). On a committed snapshot
// a query that streams hands out its rows straight off its index scan and holds the snapshot
// while the cursor is open; SQL that stops early (LIMIT, EXISTS, a join that needs one row) stops
// the scan too. Inside a write transaction, whose handle may change between rows, nothing
// streams. A query evaluated in full has its entity names resolved and its snapshot let go
// before the first row is returned, so nothing pins the graph.
// Values map to SQL as sql_values.h says; entities show as their idents.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/query_execution.h"
#include "extension/session_reader.h"
#include "extension/interrupt_probe.h"
#include "extension/graph_session.h"
#include "extension/sql_functions.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

class QueryResults {
 public:
  QueryResults() = default;
  ~QueryResults() { close(); }
  QueryResults(const QueryResults&) = delete;
  QueryResults& operator=(const QueryResults&) = delete;

  // Runs query (or starts streaming it) on the session's current state; origin says where the
  // query comes from, which decides the SQL functions it may call (sql_functions.h); it must
  // outlive the results (a table's origin outlives its cursors).
  // memo, when given, keeps the planner's choices for the query from call to call
  // (engine/eval/step_memo.h); it must outlive the call.
  Status open(sqlite3* db, GraphSession& session, const ast::Query& query,
              const eval::QueryInputs& inputs, const QueryOrigin& origin,
              const eval::Limits& limits, eval::StepMemo* memo = nullptr);
  void close();

  bool at_end() const { return !execution_ || execution_->at_end(); }
  eval::RowView row() const { return execution_->row(); }
  Status next();

  // A value of the current row as an SQL result, entities by their idents.
  void result_cell(sqlite3_context* ctx, const Value& v);
  // The current row as EDN text: [:alice 30].
  Status row_edn(std::string* text);  // fails when a name cannot be read

 private:
  Status name_of(EntityId id, std::optional<Value>* out);
  // Evaluated in full: every entity's name found now, so the snapshot can go.
  Status resolve_names();
  void release_snapshot();

  // Destroyed in reverse order: the execution before what it reads through. The snapshot, the
  // probe and the functions are held only while the execution streams.
  std::optional<GraphReading> reading_;  // in place, as the two below: no allocation per call
  std::optional<InterruptProbe> probe_;
  std::optional<SqlFunctions> sql_functions_;
  std::unique_ptr<eval::QueryExecution> execution_;
  // Names of the result's entities: the graph's shared cache, when the rows came from a read
  // snapshot (its names stay valid while the graph is open); copies in names_ otherwise.
  const store::ReadCache* shared_names_ = nullptr;
  std::unordered_map<EntityId, std::optional<Value>> names_;
};

}  // namespace datalog::ext
