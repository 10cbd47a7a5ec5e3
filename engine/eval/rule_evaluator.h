// engine/eval/rule_evaluator.h: derives the facts of rules, bottom-up, stratum by stratum
// (LANGUAGE.md §9), by semi-naive fixpoint.
//
// Strata come from the analyzer (negation only on lower strata). Within a stratum each
// iteration evaluates, for every rule and every call in its body to a rule of the same
// stratum, the body with that one call reading only the facts new in the previous iteration
// (the delta); the rest read everything derived so far. It stops when an iteration derives
// nothing new. Rules whose bodies hold not / or are iterated to the full fixpoint too (unlike
// Minigraf, header rule 2); a recursive call nested inside an or branch makes its rule
// evaluate naively (all calls read everything) each iteration, which is still exact.
// Derived tuples are sets; values that name entities are stored as the entity (a Ref).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/body_evaluator.h"
#include "engine/eval/derived_tuples.h"
#include "engine/eval/eval_context.h"

namespace datalog::eval {

class RuleEvaluator {
 public:
  RuleEvaluator(EvalContext& ctx, const std::vector<ast::Rule>& rules) : ctx_(ctx), rules_(rules) {}

  // Tuples computed elsewhere (a closure walk, closure.h) that bodies call by name: a demand
  // rule of a later call may read what an earlier call of the query found.
  void provide(const std::string& name, const TupleSet* set) { lookup_.set_full(name, set); }

  // Derives every rule in needed and what they depend on.
  Status derive(const std::set<std::string>& needed, Trace* trace);
  const DerivedLookup& lookup() const { return lookup_; }
  std::size_t derived_count() const;

 private:
  struct StratumRule;  // rule_evaluator.cpp

  // Derives the rules names (one stratum, lower strata derived) to their fixpoint.
  Status derive_stratum(const std::vector<std::string>& names, Trace* trace);
  std::vector<StratumRule> stratum_rules(const std::set<std::string>& stratum) const;
  // One iteration over rules: each body once per call in it to the stratum, that call reading
  // only delta (once, reading everything, in iteration 0 or for a call nested in an or). The
  // tuples not yet known go to fresh.
  Status derive_iteration(const std::vector<StratumRule>& rules, std::int64_t iteration,
                          std::map<std::string, TupleSet>& delta, std::map<std::string, TupleSet>& fresh);
  // Evaluates rule's body once (with the overrides lookup_ holds): its head tuples not yet known
  // go to fresh; produced counts every tuple of the iteration, for the max_derived_facts limit.
  Status derive_rule(const ast::Rule& rule, std::map<std::string, TupleSet>& fresh, std::int64_t& produced);

  EvalContext& ctx_;
  const std::vector<ast::Rule>& rules_;
  std::map<std::string, TupleSet> full_;
  DerivedLookup lookup_;
};

// Rule names called from clauses, directly (not through other rules).
void collect_calls(const std::vector<ast::Clause>& clauses, std::set<std::string>& out);
// names and every rule they call, directly or through other rules.
std::set<std::string> rules_reached(const std::vector<ast::Rule>& rules, std::set<std::string> names);

}  // namespace datalog::eval
