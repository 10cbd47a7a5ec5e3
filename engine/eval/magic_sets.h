// engine/eval/magic_sets.h: demand-driven evaluation of rules called with bound arguments.
//
// `(reach :n0 ?to)` needs only what :n0 reaches, but bottom-up evaluation derives reach for
// every node. The magic-sets rewriting fixes that before evaluation:
//   - each rule p called with a binding pattern α (b = bound, f = free per argument) gets an
//     adorned copy p#α whose body starts with a "magic" call holding the demanded bound values:
//       p#α(h...) :- (magic#p#α bound-h...), body'
//   - for each rule call q inside body' (positive, top level) with its binding pattern β in the
//     order the body binds variables (sideways information passing), a magic rule:
//       magic#q#β(bound args) :- (magic#p#α bound-h...), clauses before the call
//   - the query's call seeds the demand: magic#p#α(constants) as a fact.
// Calls inside not / or keep the original, fully evaluated rules, so stratification and
// negation are unchanged. The rewritten program derives exactly the answers the query needs;
// results are identical to full evaluation. Names use '#', which symbols cannot contain.
#pragma once

#include <vector>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog::eval {

// When where calls rules with constant arguments, returns the rewritten where clauses and the
// rule set (original rules plus adorned and magic rules) in *rules_out, and *applied = true.
Status rewrite_for_demand(const std::vector<ast::Clause>& where,
                          const std::vector<ast::Rule>& rules, std::vector<ast::Clause>* where_out,
                          std::vector<ast::Rule>* rules_out, bool* applied);

}  // namespace datalog::eval
