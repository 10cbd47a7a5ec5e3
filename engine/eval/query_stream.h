// engine/eval/query_stream.h: query results that stream — rows taken straight off one index scan,
// one at a time, instead of being collected before the first is returned.
//
// A query streams when its plan is a chain of index scans (stream_shape.h): one pattern, or
// patterns each of which looks up the entity a pattern before it bound ([$e :next ?m]
// [?m :next ?end] [?end :val ?v]), read as a nested loop that holds one binding at a time. Plain
// expressions over the patterns' variables come along — filters, and bindings of new variables
// ([(* ?v 2) ?w]) that later expressions and :find may read — each run as soon as its inputs are
// bound; :find holds plain variables. So no rules, :in bindings, aggregates (but see below),
// windows or pull; a value constant must be one no ident could stand for (not a keyword, uuid,
// ref or float, which match more than themselves). get-else, missing? and ground, which read the
// graph or may bind several values, leave a query to run_query. Everything else runs through
// run_query (query_runner.h), with the same rows: one per solution, duplicates kept. A streamed
// query stops early when its reader stops asking, and holds one row at a time; :max-results
// still counts the rows, and sqlite3_interrupt is polled as the scans go. Rows come in index
// order, the first pattern's outermost.
//
// A single scan also feeds aggregates: open_bindings() accepts a one-pattern query whose :find
// holds aggregates (no windows, no pull) and hands out the pattern's bindings one at a time
// (BindingSource), so project_aggregates folds them into groups without building a relation.
//
// The stream reads through the GraphReader it was opened on, which must outlive it and must not
// write while it is open; the query it was opened with must outlive it too (a query whose slots
// stand only in its patterns is not copied: those patterns are filled in copies of their own).
// Thread safety: none; one reader at a time.
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
  // *out stays null when the query cannot stream (run it with run_query instead). *spare, when
  // given, is storage kept from call to call: a stream of an earlier call that has ended (end())
  // is taken from it, and one that turns out not to stream is left in it, so a query run again
  // and again allocates no stream, no scope and no row per call.
  static Status open(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                     const RunOptions& options, std::unique_ptr<QueryStream>* out,
                     std::unique_ptr<QueryStream>* spare = nullptr);
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
  // The query as run: the caller's own when slots stood only in its patterns (those are filled
  // in copies here), else a copy with every slot filled in.
  const ast::Query& query() const { return *source_; }

 private:
  enum class Shape { Rows, Bindings };
  QueryStream() = default;
  // Starts a query in this stream's storage: a fresh context, every per-query field cleared.
  void begin(GraphReader& graph, const TimeView& view, const Limits& limits);
  static Status open_shape(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                           const RunOptions& options, Shape shape, std::unique_ptr<QueryStream>* out,
                           std::unique_ptr<QueryStream>* spare);
  // Opens the first scan of order_'s patterns (of `source`, slots filled); *streams is false
  // for a shape that does not stream.
  Status start(const ast::Query& source, Shape shape, bool* streams);
  // Sets up level i for order_[i]: its columns in scope_ and its filter's constant parts.
  Status add_level(std::size_t i, bool* streams);
  bool place_expressions(std::vector<const ast::ExprClause*> pending, const std::string* root_value_var,
                         bool has_ranges);
  // The id of an attribute keyword, from attribute_ids_ (start() empties them when the graph's
  // committed state is not the one they were read in).
  Status attribute_id(const Value& attribute, std::optional<EntityId>* out);
  // Opens level i's scan of the entity that its entity column holds now.
  Status open_level(std::size_t i);
  Status run_expressions(std::size_t level, bool* keep);

  // An expression run on every binding of its level, in an order where its inputs are bound.
  struct Step {
    const ast::ExprClause* clause = nullptr;
    int out_column = -1;             // in scope_, for a binding; -1 for a filter
    bool holds_on_integers = false;  // a filter the root scan's value ranges decide on integers
  };
  // One pattern of the chain. Level 0 is scanned once; each later level looks up the entity an
  // earlier level bound, once per binding of the levels before it.
  struct Level {
    DatomFilter filter;          // its constant parts; a later level's entity is set per look-up
    int entity_from = -1;        // later levels: the scope_ column naming the entity to look up
    int entity_column = -1;      // scope_ column the datom's entity binds (a variable root entity)
    int value_column = -1;       // scope_ column the datom's value binds
    int first_column = 0, end_columns = 0;  // the pattern's own columns in scope_
    std::size_t first_step = 0, end_steps = 0;  // the steps run on each of its bindings
    std::unique_ptr<DatomCursor> cursor;  // kept from call to call while keepable()
    bool open = false;           // false: no scan (ended, or a bound value that names no entity)
  };

  std::optional<EvalContext> ctx_;   // while a query runs (its memory budget ends with it)
  ast::Query query_;                 // a copy with slots substituted, when expressions hold slots
  const ast::Query* source_ = &query_;  // what the steps and :find point into
  std::vector<const ast::Pattern*> order_;  // the patterns in stream order (stream_shape.h)
  std::vector<ast::Pattern> filled_;  // copies of the patterns that hold slots, slots filled
  std::vector<Level> levels_;        // one per pattern of order_ (more, unused, from earlier calls)
  std::size_t depth_ = 0;            // the innermost level whose scan is under way
  std::vector<Step> steps_;
  Relation scope_;                   // the patterns' and the bindings' variables: what :find reads
  Row current_;                      // scope_'s values for the binding under the cursors
  std::vector<Value> produced_values_;  // an expression's output, reused from row to row
  std::vector<int> find_columns_;    // :find element -> scope_ column
  std::vector<bool> moves_out_;      // per :find element: the last use of a column the next row rebinds
  // Attributes resolved in the committed state attributes_source_ (equal sources resolve idents
  // alike, storage.h): a query run again and again looks its attributes up once per state.
  EstimateSource attributes_source_;
  std::vector<std::pair<Value, EntityId>> attribute_ids_;
  bool empty_ = false;               // a constant named nothing: no rows
  std::int64_t produced_ = 0;
};

}  // namespace datalog::eval
