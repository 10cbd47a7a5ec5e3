// engine/ast_walk.h: the one walk over the clauses of a body, into the bodies of not and the
// branches of or, and over the terms of one clause. Every pass that looks for something in a
// body (variables, slots, rule calls, host function calls) or rewrites it (slot values, known
// variables) is a visit of a clause at a time; the nesting is walked here only.
#pragma once

#include <type_traits>
#include <variant>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog::ast {

namespace walk_detail {

template <class Visit, class C>
constexpr bool kTakesNegation = std::is_invocable_v<Visit&, C&, bool>;

template <class Visit, class C>
auto call(Visit& visit, C& clause, bool negated) {
  if constexpr (kTakesNegation<Visit, C>) {
    return visit(clause, negated);
  } else {
    return visit(clause);
  }
}

template <class C, class Visit>
auto walk(C& clause, Visit& visit, bool negated) -> decltype(call(visit, clause, negated)) {
  constexpr bool kStops = std::is_same_v<decltype(call(visit, clause, negated)), Status>;
  if constexpr (kStops) {
    DATALOG_RETURN_IF_ERROR(call(visit, clause, negated));
  } else {
    call(visit, clause, negated);
  }
  if (auto* n = std::get_if<Not>(&clause.node)) {
    for (auto& inner : n->body) {
      if constexpr (kStops) {
        DATALOG_RETURN_IF_ERROR(walk(inner, visit, true));
      } else {
        walk(inner, visit, true);
      }
    }
  } else if (auto* o = std::get_if<Or>(&clause.node)) {
    for (auto& branch : o->branches) {
      for (auto& inner : branch) {
        if constexpr (kStops) {
          DATALOG_RETURN_IF_ERROR(walk(inner, visit, negated));
        } else {
          walk(inner, visit, negated);
        }
      }
    }
  }
  if constexpr (kStops) return Status::OK();
}

}  // namespace walk_detail

// Visits clause, then (depth first, in written order) the clauses of its not body or or
// branches. visit(clause) or visit(clause, negated), negated being true inside a not; it may
// return a Status, and the first error stops the walk and is returned. A const clause is
// visited as const; a mutable one may be rewritten in place (not its nesting).
template <class C, class Visit>
auto walk_clause(C& clause, Visit&& visit) {
  return walk_detail::walk(clause, visit, false);
}

// walk_clause for each clause of a body, in order.
template <class Clauses, class Visit>
auto walk_clauses(Clauses& clauses, Visit&& visit) {
  using Result = decltype(walk_detail::walk(*clauses.begin(), visit, false));
  for (auto& clause : clauses) {
    if constexpr (std::is_same_v<Result, Status>) {
      DATALOG_RETURN_IF_ERROR(walk_detail::walk(clause, visit, false));
    } else {
      walk_detail::walk(clause, visit, false);
    }
  }
  if constexpr (std::is_same_v<Result, Status>) return Status::OK();
}

// Calls term_visit(term) for the terms of one clause in written order: a pattern's e, a, v,
// a rule call's arguments (not the insides of not / or, not expressions).
template <class C, class Visit>
void for_each_term(C& clause, Visit&& term_visit) {
  if (auto* p = std::get_if<Pattern>(&clause.node)) {
    term_visit(p->e);
    term_visit(p->a);
    term_visit(p->v);
  } else if (auto* call = std::get_if<RuleCall>(&clause.node)) {
    for (auto& arg : call->args) term_visit(arg);
  }
}

// Whether a pattern holds a $slot in any position.
inline bool pattern_holds_slot(const Pattern& p) {
  return std::holds_alternative<Slot>(p.e) || std::holds_alternative<Slot>(p.a) ||
         std::holds_alternative<Slot>(p.v);
}

// Whether an expression holds a $slot, in its arguments or theirs.
inline bool expr_holds_slot(const Expr& e) {
  for (const auto& arg : e.args) {
    if (std::holds_alternative<Slot>(arg)) return true;
    if (const auto* sub = std::get_if<std::shared_ptr<Expr>>(&arg);
        sub && *sub && expr_holds_slot(**sub)) {
      return true;
    }
  }
  return false;
}

// Whether an expression clause among clauses (not nested in or / not) holds a $slot.
inline bool expression_clause_holds_slot(const std::vector<Clause>& clauses) {
  for (const auto& clause : clauses) {
    if (const auto* e = std::get_if<ExprClause>(&clause.node); e && expr_holds_slot(e->expr)) return true;
  }
  return false;
}

}  // namespace datalog::ast
