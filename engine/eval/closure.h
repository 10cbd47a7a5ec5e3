// engine/eval/closure.h: transitive closures over one attribute, by a breadth-first walk of
// index lookups instead of semi-naive iteration.
//
// A rule defined exactly by the two clauses
//   (rule [(R ?x ?y) [?x :a ?y]])
//   (rule [(R ?x ?z) [?x :a ?y] (R ?y ?z)])     ; or the left-linear [(R ?x ?z) (R ?x ?y) [?y :a ?z]]
// relates x to every node reachable from x over :a edges (paths of one edge or more). When the
// query calls it with its first argument a constant, `(reach :n0 ?to)`, the answers are the nodes
// a breadth-first walk from :n0 meets: one index lookup per node reached. Semi-naive evaluation,
// even demand-driven, derives the same set but pays a whole rule-body evaluation per step.
//
// Same semantics as the rules: nodes compare as join keys (an ident and its entity are one
// node), a node that names no entity has no successors, the query's time view applies to every
// lookup, and the rule limits hold (a level of the walk counts as an iteration, the edges it
// reads as the facts it derives).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/body_evaluator.h"
#include "engine/eval/derived_tuples.h"
#include "engine/eval/eval_context.h"

namespace datalog::eval {

// Replaces each top-level call in where of a closure rule whose first argument is a constant by
// a call of a tuple set computed here, stored in *sets under the new call's name (which no
// rule has: names use '#', which symbols cannot contain).
Status compute_closures(EvalContext& ctx, const std::vector<ast::Rule>& rules,
                        std::vector<ast::Clause>& where, std::map<std::string, TupleSet>* sets,
                        Trace* trace);

// The rule a call names, as the user wrote it: a closure set's call shows its rule's name.
std::string rule_name_as_written(const std::string& call_name);

}  // namespace datalog::eval
