// engine/eval/body_evaluator.h: evaluates a conjunction of clauses (a :where, a rule body, a
// not / or branch) over an input relation, relation at a time.
//
// Each step applies the clause the planner (join_planner.h) picks for the relation built so
// far: a filter, a pattern joined by index lookups per row or by one hashed scan, a rule call,
// an anti-join for not, a union for or. Joins compare values as entities where LANGUAGE.md §3
// says so (EvalContext::join_key).
// The trace records the order chosen, the access path and the rows, for datalog_explain.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/derived_tuples.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"
#include "engine/eval/step_memo.h"
#include "engine/status.h"

namespace datalog::eval {

struct TraceStep {
  std::string clause;     // the clause, printed
  std::string access;     // "eavt lookup per ?e", "hash join on ?e", "hash anti-join", ...
  double estimated_rows = 0;
  std::size_t actual_rows = 0;  // rows after the step
  int depth = 0;                // nesting inside not / or
};

struct Trace {
  std::vector<TraceStep> steps;
};

class BodyEvaluator {
 public:
  BodyEvaluator(EvalContext& ctx, const DerivedLookup& derived, Trace* trace = nullptr)
      : ctx_(ctx), derived_(derived), trace_(trace) {}

  Status evaluate(const std::vector<ast::Clause>& clauses, Relation input, Relation* out,
                  int depth = 0);

  // Choices of the planner kept from earlier calls of the same query (step_memo.h), for the
  // top level of the body; call is what memo->begin() gave this call.
  void use_memo(StepMemo* memo, std::uint64_t call) {
    memo_ = memo;
    memo_call_ = call;
  }

 private:
  // Evaluates the clauses not marked in elsewhere (empty: all) as one part, cheapest first.
  Status evaluate_part(const std::vector<ast::Clause>& clauses, const std::vector<bool>& elsewhere,
                       Relation input, Relation* out, int depth);
  Status cross_product(Relation left, const Relation& right, Relation* out);
  // in_range: the variables of rel whose values a pattern's scan held to the value ranges of
  // the body's comparisons on them (value_ranges.h); apply adds to it.
  Status apply(const ast::Clause& clause, Relation& rel, int depth, double estimate,
               std::string_view access, int order, const std::vector<ValueRange>& v_ranges,
               std::vector<std::string>& in_range);
  Status apply_pattern(const ast::Pattern& p, Relation& rel, bool hash_join, int order,
                       const std::vector<ValueRange>& v_ranges);
  Status apply_expression(const ast::ExprClause& c, Relation& rel,
                          const std::vector<std::string>& in_range);
  Status apply_not(const ast::Not& n, Relation& rel, int depth);
  Status apply_or(const ast::Or& o, Relation& rel, int depth);
  Status apply_rule_call(const ast::RuleCall& call, Relation& rel);

  EvalContext& ctx_;
  const DerivedLookup& derived_;
  Trace* trace_;
  StepMemo* memo_ = nullptr;
  std::uint64_t memo_call_ = 0;
  std::map<std::string, unsigned> pseudo_entities_;  // entity key -> the metadata read of it (MetaNeed)
};

// Variables a clause mentions (not wildcards), in order of appearance.
std::vector<std::string> clause_variables(const ast::Clause& clause);
// Variables a clause can bind when it runs (patterns, rule calls, expression outputs, or).
std::vector<std::string> clause_binds(const ast::Clause& clause);

}  // namespace datalog::eval
