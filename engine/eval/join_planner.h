// engine/eval/join_planner.h: which clause of a conjunction runs next, and how.
//
// Planning is adaptive and greedy: before each step the evaluator (body_evaluator.h) shows the
// planner the relation built so far, its variables and its row count, and the planner picks the
// cheapest clause that is ready:
// - filters first: an expression whose inputs are bound (cost 0), temporal metadata of a fact
//   already read, a not / not-join whose join variables are bound (a hash anti-join);
// - then the pattern, rule call or set of or-branches with the lowest estimated cost. A pattern
//   is joined either by index lookups per row (nested loop on the best index) or, when one scan
//   of it is cheaper, by that scan hashed on the shared variables (hash join). A pattern that
//   shares no variable with a relation of several rows is a cross product, costed four times
//   over, so it runs only when nothing else can.
// When no clause is ready (only clauses waiting for variables nothing binds), the first one
// left runs, to report why. Costs are in units of one row read; kSeekCost is one B-tree descent.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/derived_tuples.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"
#include "engine/status.h"

namespace datalog::eval {

inline constexpr double kSeekCost = 8.0;
inline constexpr double kUnready = std::numeric_limits<double>::infinity();

struct PlanStep {
  std::size_t index = 0;         // the clause, in written order
  double cost = kUnready;        // kUnready: nothing was ready (the "last resort" step)
  double estimate = 0;           // rows expected after the step
  bool hash_join = false;        // a pattern: one scan hashed on the shared variables
  std::string_view access;       // "filter", "hash join (one scan)", "index lookup per row", ...
  std::vector<ValueRange> v_ranges;  // a pattern's value bounds from the body's comparisons
};

class JoinPlanner {
 public:
  // The clauses and the context whose graph estimates scans; both outlive the planner.
  JoinPlanner(EvalContext& ctx, const DerivedLookup& derived, const std::vector<ast::Clause>& clauses);

  // The next step over rel: the cheapest ready clause among those not done.
  Status next(const Relation& rel, const std::vector<bool>& done, PlanStep* step) const;

  // The value bounds a pattern's scan over rel takes from the body's comparisons (PlanStep's
  // v_ranges): those of a value variable that rel does not bind, under a constant attribute.
  static std::vector<ValueRange> value_ranges_for(
      const ast::Pattern& p, const Relation& rel,
      const std::vector<const ast::ExprClause*>& comparisons);

 private:
  Status cost_pattern(const ast::Pattern& p, const Relation& rel, PlanStep* c) const;
  void cost_rule_call(const ast::RuleCall& call, const Relation& rel, PlanStep* c) const;

  EvalContext& ctx_;
  const DerivedLookup& derived_;
  const std::vector<ast::Clause>& clauses_;
  std::vector<std::vector<std::string>> binds_;  // what each clause binds, worked out once
  std::vector<const ast::ExprClause*> comparisons_;
};

}  // namespace datalog::eval
