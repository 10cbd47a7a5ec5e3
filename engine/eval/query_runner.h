// engine/eval/query_runner.h: runs one analysed query against a graph snapshot.
//
//   1. the time view: :as-of (counter or time), :valid-at (time or any; default now);
//   2. bind slots ($name) and :in bindings (relations the caller built from SQL values);
//   3. the rules the query calls, derived bottom-up (rule_evaluator.h);
//   4. the :where clauses (body_evaluator.h), starting from the :in bindings;
//   5. the :find rows (find_projector.h).
// The caller keeps the parsed query and the rules, so a named query is parsed once and run
// many times.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/body_evaluator.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"
#include "engine/storage.h"

namespace datalog::eval {

struct RunOptions {
  Limits limits;
  std::function<bool()> interrupted;  // polled; true stops the query with Interrupted
  ExternalFunctions* external = nullptr;
  std::int64_t now_ms = 0;            // "now" for the default valid time
  bool trace = false;
  StepMemo* step_memo = nullptr;      // the planner's choices kept from the query's last calls
};

struct QueryInputs {
  std::vector<Relation> bindings;        // :in bindings, and values pushed down from SQL
  std::map<std::string, Value> slots;    // $name -> value
};

struct QueryResult {
  std::vector<std::string> columns;  // the :find headers
  RowStore rows;  // one per result row, q.find.size() values each
  Trace trace;
};

Status run_query(GraphReader& graph, const ast::Query& query, const std::vector<ast::Rule>& rules,
                 const QueryInputs& inputs, const RunOptions& options, QueryResult* result);

// The time view a query asks for (:as-of, :valid-at, their slots; valid at now_ms by default).
Status query_time_view(GraphReader& graph, const ast::Query& query,
                       const std::map<std::string, Value>& slots, std::int64_t now_ms, TimeView* view);

// The query with every slot replaced by its value (an error names a missing slot).
// One pattern's slots filled in, as substitute_slots fills them (an entity position takes an
// entity form only).
Status fill_pattern_slots(ast::Pattern& pattern, const std::map<std::string, Value>& slots);
Status substitute_slots(const ast::Query& query, const std::map<std::string, Value>& slots,
                        ast::Query* out);

// Replaces the variables in known by their values, in clauses (not in join-variable lists).
void substitute_variables(std::vector<ast::Clause>& clauses, const std::map<std::string, Value>& known);

// The natural join of relations (a cross product where they share no variable).
Relation join_inputs(const std::vector<Relation>& inputs);

}  // namespace datalog::eval
