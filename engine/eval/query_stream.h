// engine/eval/query_stream.h: query results that stream — rows taken straight off one index scan,
// one at a time, instead of being collected before the first is returned.
//
// A query streams when its plan is a single scan: one pattern, plus expressions over the
// pattern's variables — filters, and bindings of new variables ([(* ?v 2) ?w]) that later
// expressions and :find may read — with plain :find variables. So no rules, :in bindings,
// aggregates, windows or pull; the pattern's attribute is a constant, no variable repeats in it,
// and its value is a variable or a constant no ident could stand for (not a keyword, uuid, ref
// or float, which match more than themselves). get-else, missing? and ground, which read the
// graph or may bind several values, leave a query to run_query. Everything else runs through run_query (query_runner.h), with the same
// results. A streamed query stops early when its reader stops asking, and holds one row at a
// time; :max-results still counts the rows, and sqlite3_interrupt is polled as the scan goes.
// Rows come in index order.
//
// The same scan also feeds aggregates: open_bindings() accepts a query whose :find holds
// aggregates (no windows, no pull) and hands out the pattern's bindings one at a time
// (BindingSource), so project_aggregates folds them into groups without building a relation.
//
// The stream reads through the GraphReader it was opened on, which must outlive it and must not
// write while it is open; the query it was opened with must outlive it too (a query whose slots
// stand only in its pattern is not copied: that pattern is filled in a copy of its own). Thread safety: none; one reader at a time.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/find_projector.h"
#include "engine/eval/query_runner.h"
#include "engine/eval/relation.h"
#include "engine/storage.h"

namespace datalog::eval {

class QueryStream final : public BindingSource {
 public:
  // *out stays null when the query cannot stream (run it with run_query instead). `reuse`, a
  // stream of an earlier call that has ended (end()), lends its storage: a query run again and
  // again allocates no stream, no scope and no row per call.
  static Status open(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                     const RunOptions& options, std::unique_ptr<QueryStream>* out,
                     std::unique_ptr<QueryStream> reuse = nullptr);
  // The same for a query whose :find holds aggregates: read it with next_binding().
  static Status open_bindings(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                              const RunOptions& options, std::unique_ptr<QueryStream>* out);

  // The next row of the result into *row, or *done when there are no more.
  Status next(Row* row, bool* done);

  // BindingSource: the pattern's variables, and their values datom by datom (filters applied).
  const std::vector<std::string>& vars() const override { return scope_.vars; }
  Status next_binding(RowView* row, bool* found) override;

  // Lets the scan and the query's context go (the graph may go next); the storage stays for
  // reuse by a later open().
  void end();

  EvalContext& context() { return *ctx_; }
  // The query as run: the caller's own when slots stood only in its pattern (that pattern is
  // filled in a copy here), else a copy with every slot filled in.
  const ast::Query& query() const { return *source_; }

 private:
  enum class Shape { Rows, Bindings };
  QueryStream() = default;
  // Starts a query in this stream's storage: a fresh context, every per-query field cleared.
  void begin(GraphReader& graph, const TimeView& view, const Limits& limits);
  static Status open_shape(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                           const RunOptions& options, Shape shape, std::unique_ptr<QueryStream>* out,
                           std::unique_ptr<QueryStream> reuse);
  // Opens the scan of `source`'s pattern, or of `filled` in its place when given.
  Status start(const ast::Query& source, const ast::Pattern* filled, Shape shape, bool* streams);
  bool place_expressions(std::vector<const ast::ExprClause*> pending, const std::string* value_var,
                         bool has_ranges);
  Status run_expressions(bool* keep);

  // An expression run on every datom, in an order where its inputs are bound.
  struct Step {
    const ast::ExprClause* clause = nullptr;
    int out_column = -1;             // in scope_, for a binding; -1 for a filter
    bool holds_on_integers = false;  // a filter the scan's value ranges decide on integers
  };

  std::optional<EvalContext> ctx_;   // while a query runs (its memory budget ends with it)
  ast::Query query_;                 // a copy with slots substituted, when expressions hold slots
  const ast::Query* source_ = &query_;  // what the steps and :find point into
  ast::Pattern pattern_;             // the pattern with its slots filled, when only it holds slots
  std::vector<Step> steps_;
  Relation scope_;                   // the pattern's and the bindings' variables: what :find reads
  Row current_;                      // scope_'s values for the datom under the cursor
  std::vector<Value> produced_values_;  // an expression's output, reused from row to row
  int entity_column_ = -1, value_column_ = -1;  // in scope_
  std::vector<int> find_columns_;    // :find element -> scope_ column
  std::vector<bool> moves_out_;      // per :find element: the last use of its column
  std::unique_ptr<DatomCursor> cursor_;
  std::unique_ptr<DatomCursor> spare_cursor_;  // the last scan's, started again by the next
  bool empty_ = false;               // a constant named nothing: no rows
  std::int64_t produced_ = 0;
};

}  // namespace datalog::eval
