// extension/query_results.h: the rows of one query run, for a cursor of datalog_q or a
// datalog_query table.
//
// A query that can stream (engine/eval/query_stream.h: one index scan, filters, plain :find
// variables) on a committed snapshot hands out its rows one at a time, straight off the scan, and
// holds the snapshot while the cursor is open; SQL that stops early (LIMIT, EXISTS, a join that
// needs one row) stops the scan too. Any other query — or any query inside a write transaction,
// whose handle may change between rows — is evaluated in full, its entity names resolved, and
// the snapshot let go before the first row is returned, so nothing pins the graph.
// Values map to SQL as sql_values.h says; entities show as their idents.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/query_runner.h"
#include "engine/eval/query_stream.h"
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
  Status open(sqlite3* db, GraphSession& session, const ast::Query& query,
              const eval::QueryInputs& inputs, const QueryOrigin& origin, const eval::Limits& limits);
  void close();

  bool at_end() const { return at_end_; }
  eval::RowView row() const { return stream_ ? eval::RowView(current_) : rows_[pos_]; }
  Status next();

  // A value of the current row as an SQL result, entities by their idents.
  void result_cell(sqlite3_context* ctx, const Value& v);
  // The current row as EDN text: [:alice 30].
  std::string row_edn();

 private:
  Status name_of(EntityId id, std::optional<Value>* out);
  Status evaluate(sqlite3* db, std::unique_ptr<GraphReading> reading, const ast::Query& query,
                  const std::vector<ast::Rule>& rules, const eval::QueryInputs& inputs,
                  const QueryOrigin& origin, const eval::Limits& limits);

  // While streaming (destroyed in reverse order: the stream before what it reads through).
  std::unique_ptr<GraphReading> reading_;
  std::optional<InterruptProbe> probe_;  // in place: no allocation per call
  std::optional<SqlFunctions> sql_functions_;
  std::unique_ptr<eval::QueryStream> stream_;
  eval::Row current_;
  // Evaluated in full.
  eval::RowStore rows_;
  std::size_t pos_ = 0;
  // Names of the result's entities: the graph's shared cache, when the rows came from a read
  // snapshot (its names stay valid while the graph is open); copies in names_ otherwise.
  const store::ReadCache* shared_names_ = nullptr;
  std::unordered_map<EntityId, std::optional<Value>> names_;
  bool at_end_ = true;
};

}  // namespace datalog::ext
