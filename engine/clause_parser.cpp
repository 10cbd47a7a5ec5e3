// :where clauses and rule bodies (§7-§11, §13, §15): patterns, expression clauses, rule calls,
// not / not-join, or / or-join / and.
//
// Shape rules that Minigraf enforces while parsing are enforced here with its messages; the
// variable-binding rules are the analyzer's (engine/analyzer.h).
#include <fmt/format.h>

#include "engine/function_names.h"
#include "engine/functions/builtins.h"
#include "engine/functions/regex.h"
#include "engine/parser_internal.h"

namespace datalog::parser_detail {

namespace {

using edn::Node;
using edn::NodeKind;

bool is_clause_vector_expr(const Node& vec) {
  return !vec.items.empty() && vec.items[0].kind == NodeKind::List;
}

std::string_view not_clause_message(Place place) {
  switch (place) {
    case Place::Where:
      return "Expected pattern vector or rule invocation in :where clause, got ";
    case Place::RuleBody:
      return "Rule body clause must be a vector (pattern) or list (rule invocation / not), got ";
    case Place::Not:
      return "expected pattern or rule invocation inside (not), got ";
    case Place::NotJoin:
      return "expected pattern or rule invocation inside (not-join), got ";
    case Place::OrBranch:
      return "expected clause inside or branch, got ";
  }
  return "unexpected clause: ";
}

}  // namespace

Status FormParser::clause(const Node& node, Place place, ast::Clause* out) const {
  if (node.kind == NodeKind::Vector) {
    if (is_clause_vector_expr(node)) {
      ast::ExprClause e;
      DATALOG_RETURN_IF_ERROR(expr_clause(node, &e));
      out->node = std::move(e);
    } else {
      ast::Pattern p;
      DATALOG_RETURN_IF_ERROR(pattern(node, &p));
      out->node = std::move(p);
    }
    return Status::OK();
  }
  if (node.kind == NodeKind::List) {
    const bool inside_not = place == Place::Not || place == Place::NotJoin;
    if (inside_not && !node.items.empty() &&
        (node.items[0].is_symbol("or") || node.items[0].is_symbol("or-join"))) {
      return error(node, "(or)/(or-join) cannot appear inside (not)/(not-join)");
    }
    return list_clause(node, inside_not, out);
  }
  return error(node, std::string(not_clause_message(place)) + describe(node));
}

// A list in :where: a clause form, or a rule call. A built-in function written here is the
// pitfall of §8 (Minigraf runs it as a call of an undefined rule and matches nothing); we refuse
// it and say how to write it (header rule 3).
Status FormParser::list_clause(const Node& list, bool inside_not, ast::Clause* out) const {
  if (list.items.empty()) return error(list, "Empty list in :where clause");
  const Node& head = list.items[0];
  if (head.kind != NodeKind::Symbol || head.is_term_variable() || head.is_symbol("$") ||
      head.is_symbol("...")) {
    return error(head,
                 fmt::format("Rule invocation must start with predicate name (symbol), got {}",
                             describe(head)));
  }
  const std::string& name = head.text;
  if (name == "not" || name == "not-join") {
    if (inside_not) {
      return error(list, name == "not" ? "(not ...) cannot appear inside another (not ...)"
                                       : "(not-join ...) cannot appear inside another (not ...) "
                                         "or (not-join ...)");
    }
    ast::Not n;
    DATALOG_RETURN_IF_ERROR(not_clause(list, &n));
    out->node = std::move(n);
    return Status::OK();
  }
  if (name == "or" || name == "or-join") {
    ast::Or o;
    DATALOG_RETURN_IF_ERROR(or_clause(list, &o));
    out->node = std::move(o);
    return Status::OK();
  }
  if (name == "and") {
    return error(list, "(and ...) is only allowed as a branch of (or ...) or (or-join ...)");
  }
  if (is_builtin_function(name)) {
    const std::string_view text = source(list);
    return error(list, fmt::format("{} is a function call, not a rule invocation: write it in "
                                   "brackets, [{}]",
                                   text, text));
  }
  ast::RuleCall call;
  DATALOG_RETURN_IF_ERROR(rule_call(list, &call));
  out->node = std::move(call);
  return Status::OK();
}

// (name arg ...): arguments are variables, constants or $slots.
Status FormParser::rule_call(const Node& list, ast::RuleCall* out) const {
  out->name = list.items[0].text;
  out->pos = list.pos;
  for (std::size_t k = 1; k < list.items.size(); ++k) {
    ast::Term t;
    DATALOG_RETURN_IF_ERROR(term(list.items[k], TermRole::RuleArgument, &t));
    out->args.push_back(std::move(t));
  }
  return Status::OK();
}

// (not clause ...) / (not-join [?v ...] clause ...) (§10). The caller has refused nesting.
Status FormParser::not_clause(const Node& list, ast::Not* out) const {
  out->pos = list.pos;
  out->is_join = list.items[0].text == "not-join";
  std::size_t first_clause = 1;
  if (out->is_join) {
    if (list.items.size() < 3) {
      return error(list, "(not-join) requires a join-vars vector and at least one clause");
    }
    DATALOG_RETURN_IF_ERROR(join_vars(list, "not-join", &out->join_vars));
    first_clause = 2;
  } else if (list.items.size() < 2) {
    return error(list, "(not) requires at least one clause");
  }
  const Place place = out->is_join ? Place::NotJoin : Place::Not;
  for (std::size_t k = first_clause; k < list.items.size(); ++k) {
    ast::Clause c;
    DATALOG_RETURN_IF_ERROR(clause(list.items[k], place, &c));
    out->body.push_back(std::move(c));
  }
  return Status::OK();
}

// (or branch ...) / (or-join [?v ...] branch ...) (§11).
Status FormParser::or_clause(const Node& list, ast::Or* out) const {
  out->pos = list.pos;
  out->is_join = list.items[0].text == "or-join";
  std::size_t first_branch = 1;
  if (out->is_join) {
    if (list.items.size() < 3) {
      return error(list, "(or-join) requires a join-vars vector and at least one branch");
    }
    DATALOG_RETURN_IF_ERROR(join_vars(list, "or-join", &out->join_vars));
    first_branch = 2;
  } else if (list.items.size() < 2) {
    return error(list, "(or) requires at least one branch");
  }
  for (std::size_t k = first_branch; k < list.items.size(); ++k) {
    std::vector<ast::Clause> branch;
    DATALOG_RETURN_IF_ERROR(or_branch(list.items[k], &branch));
    out->branches.push_back(std::move(branch));
  }
  return Status::OK();
}

// One clause, or (and clause ...).
Status FormParser::or_branch(const Node& node, std::vector<ast::Clause>* out) const {
  if (node.kind == NodeKind::List && !node.items.empty() && node.items[0].is_symbol("and")) {
    if (node.items.size() < 2) {
      return error(node, "(and) inside or/or-join requires at least one clause");
    }
    for (std::size_t k = 1; k < node.items.size(); ++k) {
      ast::Clause c;
      DATALOG_RETURN_IF_ERROR(clause(node.items[k], Place::OrBranch, &c));
      out->push_back(std::move(c));
    }
    return Status::OK();
  }
  ast::Clause c;
  DATALOG_RETURN_IF_ERROR(clause(node, Place::OrBranch, &c));
  out->push_back(std::move(c));
  return Status::OK();
}

// The [?v ...] after not-join / or-join.
Status FormParser::join_vars(const Node& list, std::string_view form,
                             std::vector<ast::Variable>* out) const {
  const Node& vec = list.items[1];
  if (vec.kind != NodeKind::Vector) {
    return error(vec, fmt::format("({}) first argument must be a vector of join variables", form));
  }
  for (const Node& v : vec.items) {
    if (!v.is_variable()) {
      return error(
          v, fmt::format("({}) join variables must be logic variables, got {}", form, describe(v)));
    }
    out->push_back(variable_of(v));
  }
  return Status::OK();
}

// [E A V] (§7, §13, §15).
Status FormParser::pattern(const Node& vec, ast::Pattern* out) const {
  out->pos = vec.pos;
  if (vec.items.size() != 3) {
    return error(
        vec, fmt::format("Pattern must have exactly 3 elements (E A V), got {}", vec.items.size()));
  }
  const Node& e = vec.items[0];
  const Node& a = vec.items[1];
  const Node& v = vec.items[2];
  if (e.kind == NodeKind::Keyword && is_pseudo_attribute(e.text)) {
    return error(e, fmt::format("pseudo-attribute {} is not valid in entity position", e.text));
  }
  if (v.kind == NodeKind::Keyword && is_pseudo_attribute(v.text)) {
    return error(v, fmt::format("pseudo-attribute {} is not valid in value position", v.text));
  }
  if (a.kind == NodeKind::Slot) {
    return error(a, fmt::format("bind slot '${}' is not permitted in attribute position; the "
                                "query optimizer selects an index based on the attribute at "
                                "prepare time and cannot handle a parameterised attribute",
                                a.text));
  }
  DATALOG_RETURN_IF_ERROR(term(e, TermRole::PatternElement, &out->e));
  DATALOG_RETURN_IF_ERROR(term(a, TermRole::PatternElement, &out->a));
  DATALOG_RETURN_IF_ERROR(term(v, TermRole::PatternElement, &out->v));
  return Status::OK();
}

Status FormParser::term(const Node& node, TermRole role, ast::Term* out) const {
  if (node.is_term_variable()) {
    *out = variable_of(node);
    return Status::OK();
  }
  if (node.kind == NodeKind::Slot && role != TermRole::RuleHead) {
    *out = ast::Slot{node.text};
    return Status::OK();
  }
  if (const auto value = constant_of(node)) {
    *out = *value;
    return Status::OK();
  }
  if (node.is_symbol("$")) return error(node, kBareSlotMessage);
  switch (role) {
    case TermRole::PatternElement:
      return error(node,
                   fmt::format("Pattern element must be a variable, a constant or a $slot, got {}",
                               describe(node)));
    case TermRole::RuleArgument:
      return error(
          node, fmt::format("Rule invocation argument must be a variable, a constant or a $slot, "
                            "got {}",
                            describe(node)));
    case TermRole::RuleHead:
      break;
  }
  return error(node, fmt::format("Rule head argument must be a variable or a constant, got {}",
                                 describe(node)));
}

// [(expr)] or [(expr) ?out] (§8).
Status FormParser::expr_clause(const Node& vec, ast::ExprClause* out) const {
  out->pos = vec.pos;
  DATALOG_RETURN_IF_ERROR(expr(vec.items[0], /*nested=*/false, &out->expr));
  if (vec.items.size() == 2) {
    const Node& target = vec.items[1];
    if (!target.is_variable()) {
      return error(target,
                   fmt::format("expression output must be a ?variable, got {}", describe(target)));
    }
    out->out = variable_of(target);
  } else if (vec.items.size() > 2) {
    return error(vec,
                 fmt::format("expression clause must be [(expr)] or [(expr) ?out], got {} elements",
                             vec.items.size()));
  }
  const std::string& op = out->expr.op;
  if (!out->out && (op == "get-else" || op == "ground")) {
    return error(vec, op == "get-else"
                          ? "get-else must bind its result: [(get-else ?e :attr default) ?v]"
                          : "ground must bind its result: [(ground 42) ?x]");
  }
  return Status::OK();
}

// (op arg ...). Arity is checked for the built-ins engine/functions knows, for matches? and for
// the binding functions; any other name may be a SQL function of the connection, so the
// evaluator resolves it (and reports "unknown expression operator: X").
Status FormParser::expr(const Node& list, bool nested, ast::Expr* out) const {
  out->pos = list.pos;
  if (list.items.empty()) return error(list, "expression list cannot be empty");
  const Node& head = list.items[0];
  if (head.kind != NodeKind::Symbol || head.is_symbol("$")) {
    return error(head, fmt::format("expression head must be a symbol, got {}", describe(head)));
  }
  const std::string& op = head.text;
  out->op = op;
  std::size_t first_arg = 1;
  if (is_binding_function(op)) {
    if (nested) {
      return error(list, fmt::format("{} cannot be nested inside another expression; bind it in "
                                     "its own clause first",
                                     op));
    }
    // Datomic writes the database source first: (get-else $ ?e :attr default).
    if (op != "ground" && list.items.size() > 1 && list.items[1].is_symbol("$")) first_arg = 2;
  }
  const std::size_t n = list.items.size() - first_arg;
  if (functions::is_regex_function(op) && n != 2) {
    return error(list, fmt::format("{} takes exactly 2 arguments", op));
  }
  if (op == "get-else" && n != 3) {
    return error(list, "get-else takes exactly 3 arguments: (get-else ?e :attr default)");
  }
  if (op == "missing?" && n != 2) {
    return error(list, "missing? takes exactly 2 arguments: (missing? ?e :attr)");
  }
  if (op == "ground" && n != 1) return error(list, "ground takes exactly 1 argument");
  if (functions::find_builtin(op) != nullptr) {
    const Status arity = functions::check_builtin_arity(op, n);
    if (!arity.ok()) return error(list, arity.message());
  }
  for (std::size_t k = first_arg; k < list.items.size(); ++k) {
    ast::ExprArg arg;
    DATALOG_RETURN_IF_ERROR(expr_arg(list.items[k], &arg));
    out->args.push_back(std::move(arg));
  }
  const auto is_literal = [](const ast::ExprArg& arg, ValueKind kind) {
    const auto* v = std::get_if<Value>(&arg);
    return v != nullptr && v->kind() == kind;
  };
  if (functions::is_regex_function(op)) {
    const std::size_t p = functions::regex_pattern_argument(op);
    if (!is_literal(out->args[p], ValueKind::String)) {
      // matches? keeps Minigraf's words; re-find / re-matches are ours.
      return error(list.items[first_arg + p],
                   op == "matches?"
                       ? std::string("matches? second argument must be a string literal")
                       : fmt::format("{} pattern must be a string literal", op));
    }
    std::shared_ptr<const re2::RE2> compiled;
    const Status st =
        functions::compile_regex(std::get<Value>(out->args[p]).as_string(), &compiled);
    if (!st.ok()) return error(list.items[first_arg + p], st.message());
  }
  if ((op == "get-else" || op == "missing?") && !is_literal(out->args[1], ValueKind::Keyword)) {
    const Node& attr = list.items[first_arg + 1];
    return error(attr, fmt::format("{} attribute must be a keyword, got {}", op, describe(attr)));
  }
  if (op == "ground" && !std::holds_alternative<Value>(out->args[0]) &&
      !std::holds_alternative<ast::Slot>(out->args[0])) {
    return error(list.items[first_arg], fmt::format("ground takes a constant or a $slot, got {}",
                                                    describe(list.items[first_arg])));
  }
  return Status::OK();
}

Status FormParser::expr_arg(const Node& node, ast::ExprArg* out) const {
  if (node.is_variable()) {
    *out = variable_of(node);
    return Status::OK();
  }
  if (node.kind == NodeKind::List) {
    auto nested = std::make_shared<ast::Expr>();
    DATALOG_RETURN_IF_ERROR(expr(node, /*nested=*/true, nested.get()));
    *out = std::move(nested);
    return Status::OK();
  }
  if (node.kind == NodeKind::Slot) {
    *out = ast::Slot{node.text};
    return Status::OK();
  }
  if (const auto value = constant_of(node)) {
    *out = *value;
    return Status::OK();
  }
  if (node.is_symbol("$")) return error(node, kBareSlotMessage);
  return error(node, fmt::format("unsupported expression argument: {}", describe(node)));
}

}  // namespace datalog::parser_detail
