// engine/eval/query_execution.h: the one way a caller runs a query and reads its rows.
//
// QueryExecution::start decides how the query runs:
//   - it streams (query_stream.h) when its plan is one index scan or a chain of look-ups
//     (stream_shape.h), it calls no rules, and the caller says the graph stays still while the
//     rows are read (a committed snapshot, not a write transaction whose handle may change
//     between rows): rows come straight off the scans, one at a time, and a reader that stops
//     early stops them;
//   - otherwise it is evaluated in full (query_runner.h) before the first row is returned.
// The caller reads rows the same way in both cases (at_end / row / next). The rules a query calls
// are asked for only when it calls some (reading them costs a look at the graph's rule table), and
// every call is checked against them first ("unknown rule ...").
//
// The graph, the query, the inputs and the options' interrupt probe and external functions must
// outlive a streaming execution; an evaluated one holds only its rows.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/query_runner.h"
#include "engine/eval/query_stream.h"
#include "engine/eval/relation.h"
#include "engine/storage.h"

namespace datalog::eval {

class QueryExecution {
 public:
  // Hands out the graph's rules; called at most once, and only for a query that calls rules.
  using RuleSource = std::function<Status(const std::vector<ast::Rule>** rules)>;

  // *out, when it holds the execution of an earlier call, is reused: a query run again and again
  // (a named query table's point look-up) allocates no stream and no row per call.
  static Status start(GraphReader& graph, const ast::Query& query, const RuleSource& rules,
                      const QueryInputs& inputs, const RunOptions& options, bool graph_stays_still,
                      std::unique_ptr<QueryExecution>* out);
  // Lets go of the rows and of any scan, keeping the storage for the next start().
  void clear();

  bool streaming() const { return stream_ != nullptr; }
  bool at_end() const { return at_end_; }
  RowView row() const { return stream_ ? RowView(current_) : rows_[pos_]; }
  // The next row; at the end of a stream (or on its error) the scan is let go at once, so the
  // caller may let the graph go once at_end().
  Status next();

  // Evaluated in full: every row, for a caller that reads something of each (entity names)
  // before it lets the graph go. Empty while streaming.
  const RowStore& rows() const { return rows_; }

 private:
  QueryExecution() = default;

  std::unique_ptr<QueryStream> stream_;  // while the rows stream
  std::unique_ptr<QueryStream> spare_;   // an ended stream, for the next start()
  Row current_;
  RowStore rows_;
  std::size_t pos_ = 0;
  bool at_end_ = true;
  bool cleared_ = true;  // nothing held since the last clear(), which callers make twice a call
};

// Whether any clause of the body, at any depth (or, not, not-join), calls a rule.
bool calls_rules(const std::vector<ast::Clause>& clauses);

}  // namespace datalog::eval
