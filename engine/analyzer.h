// engine/analyzer.h: the static checks of a parsed command (variable safety, rule calls,
// stratification), after engine/parser.h and before planning.
//
// Safety does not depend on clause order (LANGUAGE.md header rule 3). In a query's :where or a
// rule's body, a variable is *bound* when
//   - it is an :in variable (queries) or a head argument (rules), or
//   - a pattern or a rule call anywhere in the body names it, or
//   - it is the output of an expression clause whose own variables are all bound (so chains of
//     expressions resolve in any order, and a cycle of them binds nothing), or
//   - every branch of an (or ...) binds it.
// not / not-join / or-join bind nothing outside themselves. Wildcards (_ and ?_x) are never
// bound. Within that meaning the rules and messages are Minigraf's (§8, §10, §11, §14):
//   - an expression's variables must be bound:
//       "variable ?x in expression clause is not bound by any earlier clause"
//     (Minigraf's words, kept although order no longer matters);
//   - every variable a (not ...) body binds must be bound outside it:
//       "variable ?y in (not ...) is not bound by any outer clause";
//   - not-join's join variables must be bound outside:
//       "join variable ?x in (not-join ...) is not bound by any outer clause";
//   - every branch of an (or ...) introduces the same new variables (relative to what the rest of
//     the body binds): "all branches of (or ...) must introduce the same set of new variables";
//   - or-join's join variables must be bound by another clause — rule-head variables count, in
//     our dialect: "join variable ?x in (or-join ...) is not bound by any earlier clause";
//   - inside a not-join or or-join body only the join variables are shared with the outside;
//   - :find variables, aggregate, window and pull variables and :with variables must be bound
//     ("Aggregate variable ?x not bound in :where", "':with' variable ?x not bound in :where",
//     and ours, "Find variable ?x not bound in :where"); a ?_ find variable is allowed (it binds
//     nothing, so the result is empty, as in Minigraf);
//   - :with needs an aggregate: "':with' clause requires at least one aggregate in :find";
//   - a query with no :where, no :in and no aggregate: Minigraf's "query has no :where clause,
//     rules, or aggregates — nothing binds the variables. ...".
// Positioned errors use engine/parse_error.h's format. Every function is pure and never throws.
#pragma once

#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog {

// Safety of one query / one rule (above).
Status check_query(const ast::Query& query);
Status check_rule(const ast::Rule& rule);
// check_query or check_rule for those commands; transact and retract have nothing to check.
Status check_command(const ast::Command& command);

// The rule set as a program (engine/stratification.cpp). Rules with the same name are the
// disjuncts of one predicate; calls of names no rule defines are allowed here (a rule may be
// defined later) and reported by check_rule_calls when a query reaches them.
//   - every definition of a name has the same arity, and a call of a defined rule matches it;
//   - no predicate depends negatively on itself: a call inside not / not-join (also within an
//     or branch) is a negative edge, every other call a positive one, and a cycle through a
//     negative edge is refused with Minigraf's
//       "unstratifiable: predicate 'p' is involved in a negative cycle through 'q'"
//     where p is the calling rule of the negative edge and q the rule it negates.
Status check_rule_set(const std::vector<ast::Rule>& rules);

// Rule names in evaluation order: the strongly connected components of the dependency graph,
// each one after every component it calls. Within a component, names keep the order of their
// first definition. Fails as check_rule_set does.
Status stratify(const std::vector<ast::Rule>& rules, std::vector<std::vector<std::string>>* strata);

// Every rule the query calls, directly or through other rules, is defined with the arity of the
// call: "unknown rule 'reach' (define it with (rule [(reach ...) ...]))" (header rule 3), or
// "rule 'reach' takes 2 arguments but is called with 3". Calls in the query carry their
// position; calls inside rule bodies name the calling rule instead.
Status check_rule_calls(const ast::Query& query, const std::vector<ast::Rule>& rules);

}  // namespace datalog
