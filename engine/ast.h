// engine/ast.h: the parsed form of the Datalog dialect (LANGUAGE.md §1-§17 and its header).
//
// The parser (engine/parser.h) builds these nodes from text; the analyzer checks them; the
// planner and evaluator read them. Nodes are plain values owning their children. Every node a
// user can get wrong carries the SourcePos of its first character, for error messages.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/value.h"

namespace datalog::pull {
struct Pattern;  // engine/pull_pattern.h
}

namespace datalog::ast {

struct SourcePos {
  int line = 1;    // 1-based
  int column = 1;  // 1-based, in bytes
};

// ?name. Wildcards (`_` and `?_name`) are Variables with is_wildcard(): they match anything and
// bind nothing.
struct Variable {
  std::string name;  // including the leading '?' ("_" for the bare wildcard)
  SourcePos pos;     // where the parser read it; not part of its identity (operator== ignores it)
  bool is_wildcard() const { return name == "_" || name.rfind("?_", 0) == 0; }
  bool operator==(const Variable& o) const { return name == o.name; }
};

// $name: a bind slot (§15), filled from SQL parameters before evaluation.
struct Slot {
  std::string name;  // without the '$'
  bool operator==(const Slot& o) const { return name == o.name; }
};

// A position in a pattern, rule head or rule call: a variable, a constant or a slot.
using Term = std::variant<Variable, Value, Slot>;

// The variable a term names, unless it is none or a wildcard (which binds nothing).
inline const Variable* named_variable(const Term& t) {
  const auto* v = std::get_if<Variable>(&t);
  return v && !v->is_wildcard() ? v : nullptr;
}

// [E A V]
struct Pattern {
  Term e, a, v;
  SourcePos pos;
};

struct Expr;
// An argument of an expression: variable, constant, slot, or a nested call (§8).
using ExprArg = std::variant<Variable, Value, Slot, std::shared_ptr<Expr>>;

// (op arg ...): a built-in function or predicate, or a SQL function of the connection (§16).
struct Expr {
  std::string op;  // the symbol: "<", "+", "starts-with?", "get-else", "matches?", ...
  std::vector<ExprArg> args;
  SourcePos pos;
};

// [(expr)] filters rows by truthiness; [(expr) ?out] binds ?out (§8).
struct ExprClause {
  Expr expr;
  std::optional<Variable> out;
  SourcePos pos;
};

// (name arg ...): a rule invocation (§9).
struct RuleCall {
  std::string name;
  std::vector<Term> args;
  SourcePos pos;
};

struct Clause;

// (not clause ...) or (not-join [?v ...] clause ...) (§10).
struct Not {
  bool is_join = false;
  std::vector<Variable> join_vars;  // not-join only
  std::vector<Clause> body;
  SourcePos pos;
};

// (or branch ...) or (or-join [?v ...] branch ...); a branch is one clause or (and clause ...),
// stored as a list of clauses (§11).
struct Or {
  bool is_join = false;
  std::vector<Variable> join_vars;  // or-join only
  std::vector<std::vector<Clause>> branches;
  SourcePos pos;
};

struct Clause {
  std::variant<Pattern, ExprClause, RuleCall, Not, Or> node;
};

// --- :find ------------------------------------------------------------------------------------

enum class Order { Asc, Desc };

// :over (:partition-by ?p :order-by ?o :asc|:desc) (§14).
struct WindowSpec {
  std::optional<Variable> partition_by;
  Variable order_by;
  Order order = Order::Asc;
};

struct FindElement {
  enum class Kind { Variable, Aggregate, Window, Pull };
  Kind kind = Kind::Variable;
  Variable var;                   // the variable, or the aggregate's / window's argument
  bool has_var = true;            // false for (rank :over ...) and (row-number :over ...)
  std::string function;           // aggregate or window function name
  std::optional<WindowSpec> over;  // Window only
  std::string pull_pattern;       // Pull only: the pattern's source text
  std::shared_ptr<const pull::Pattern> pull;  // Pull only: the parsed pattern
  std::string header;             // the column header: "?x", "(count ?e)", "(rank :over ...)"
  SourcePos pos;
};

// :in bindings (header rule 3): ?x, [?a ?b], [?x ...], [[?a ?b]].
struct InBinding {
  enum class Kind { Scalar, Tuple, Collection, Relation };
  Kind kind = Kind::Scalar;
  std::vector<Variable> vars;
  SourcePos pos;
};

// :as-of N | "ISO" | $slot
struct AsOf {
  enum class Kind { Counter, Time, Slot };
  Kind kind = Kind::Counter;
  std::int64_t value = 0;  // counter, or time in ms
  std::string slot;
};

// :valid-at "ISO" | :any-valid-time | $slot
struct ValidAt {
  enum class Kind { Time, AnyValidTime, Slot };
  Kind kind = Kind::Time;
  std::int64_t ms = 0;
  std::string slot;
};

struct Query {
  std::vector<FindElement> find;
  std::vector<Variable> with;
  std::vector<InBinding> in;
  std::vector<Clause> where;
  std::optional<AsOf> as_of;
  std::optional<ValidAt> valid_at;
  std::optional<std::int64_t> max_results;
  std::optional<std::int64_t> max_derived_facts;
  SourcePos pos;
};

// --- writes and rules ---------------------------------------------------------------------------

// [e a v] or [e a v {:valid-from "ISO" :valid-to "ISO"}] (§4); e is a keyword, uuid or integer.
struct Fact {
  Value e;
  Value a;  // a keyword
  Value v;
  std::optional<std::int64_t> valid_from;  // ms; the per-fact map wins key by key
  std::optional<std::int64_t> valid_to;
  SourcePos pos;
  // Facts written as an entity map {:db/id e :attr v ...} share its index here; e is nil when
  // the map has no :db/id (the entity is found by upsert or made new; engine/schema.h).
  int entity_map = -1;
};

struct Transact {
  std::optional<std::int64_t> valid_from;  // transaction-level defaults
  std::optional<std::int64_t> valid_to;
  std::vector<Fact> facts;
  SourcePos pos;
};

struct Retract {
  std::vector<Fact> facts;
  SourcePos pos;
};

// (rule [(name ?a ...) body ...]) (§9). Head arguments are variables or constants.
struct Rule {
  std::string name;
  std::vector<Term> head;
  std::vector<Clause> body;
  std::string source;  // the rule's text, as persisted in the graph
  SourcePos pos;
};

struct QueryCommand {
  Query query;
  std::string source;
};

using Command = std::variant<Transact, Retract, QueryCommand, Rule>;

}  // namespace datalog::ast
