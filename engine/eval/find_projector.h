// engine/eval/find_projector.h: from the bindings of :where to the rows of :find (LANGUAGE.md
// §6, §14): plain variables (a bag: duplicates kept), aggregates grouped by the plain variables
// (groups in ascending key order), and window functions over the rows (binding order kept).
// With both, aggregation runs first and the windows run over the aggregated rows, where a
// variable that only appears inside aggregates is bound to its aggregate's value. A pull
// element gives its variable's entity as JSON text (engine/eval/pull_evaluator.h); with
// aggregates its variable groups like a plain one.
#pragma once

#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"

namespace datalog::eval {

// Aggregate and window names the engine does not know go to ctx's external functions.
Status project_find(EvalContext& ctx, const ast::Query& query, const Relation& bindings,
                    RowStore* rows);

// The bindings of :where handed over one row at a time, so that aggregates over a scan need not
// build the relation first (query_stream.h).
class BindingSource {
 public:
  virtual ~BindingSource() = default;
  virtual const std::vector<std::string>& vars() const = 0;
  // The next row in *row (valid until the next call) and *found; *found false after the last.
  virtual Status next_binding(RowView* row, bool* found) = 0;
};

// project_find for a query whose :find holds aggregates and neither windows nor pull.
Status project_aggregates(EvalContext& ctx, const ast::Query& query, BindingSource& bindings,
                          RowStore* rows);

}  // namespace datalog::eval
