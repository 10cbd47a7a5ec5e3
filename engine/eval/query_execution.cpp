#include "engine/eval/query_execution.h"

#include "engine/analyzer.h"
#include "engine/ast_walk.h"

namespace datalog::eval {

bool calls_rules(const std::vector<ast::Clause>& clauses) {
  bool calls = false;
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    calls = calls || std::holds_alternative<ast::RuleCall>(clause.node);
  });
  return calls;
}

Status QueryExecution::start(GraphReader& graph, const ast::Query& query, const RuleSource& rules,
                             const QueryInputs& inputs, const RunOptions& options,
                             bool graph_stays_still, std::unique_ptr<QueryExecution>* out) {
  std::unique_ptr<QueryExecution> run = std::move(*out);
  if (run) run->clear();
  else run.reset(new QueryExecution());
  run->cleared_ = false;
  static const std::vector<ast::Rule> kNoRules;
  const std::vector<ast::Rule>* called = &kNoRules;
  if (calls_rules(query.where)) {
    DATALOG_RETURN_IF_ERROR(rules(&called));
    DATALOG_RETURN_IF_ERROR(check_rule_calls(query, *called));
  }
  // Rules are derived in full before the body runs, so only a rule-free query can stream.
  if (graph_stays_still && called->empty()) {
    DATALOG_RETURN_IF_ERROR(
        QueryStream::open(graph, query, inputs, options, &run->stream_, &run->spare_));
  }
  if (run->stream_) {
    run->at_end_ = false;
    DATALOG_RETURN_IF_ERROR(run->next());
  } else {
    QueryResult result;
    DATALOG_RETURN_IF_ERROR(run_query(graph, query, *called, inputs, options, &result));
    run->rows_ = std::move(result.rows);
    run->at_end_ = run->rows_.empty();
  }
  *out = std::move(run);
  return Status::OK();
}

void QueryExecution::clear() {
  if (cleared_) return;
  cleared_ = true;
  if (stream_) {
    stream_->end();
    spare_ = std::move(stream_);
  }
  rows_ = RowStore();  // a large result's memory goes now
  pos_ = 0;
  at_end_ = true;
  current_.clear();
}

Status QueryExecution::next() {
  if (!stream_) {
    at_end_ = ++pos_ >= rows_.size();
    return Status::OK();
  }
  bool done = true;
  const Status st = stream_->next(&current_, &done);
  if (!st.ok() || done) {
    // The scan is over: let go of it (and so of the graph) at once.
    at_end_ = true;
    stream_->end();
    spare_ = std::move(stream_);
    current_.clear();
  }
  return st;
}

}  // namespace datalog::eval
