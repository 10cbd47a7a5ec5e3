#include "engine/eval/host_calls.h"

#include <set>

#include "engine/ast_walk.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/rule_evaluator.h"

namespace datalog::eval {

namespace {

void collect_from_expr(const ast::Expr& e, std::vector<HostCall>* out) {
  if (std::optional<std::string> name = host_function_of(e)) {
    out->push_back(HostCall{std::move(*name), e.args.size(), e.pos});
  }
  for (const ast::ExprArg& arg : e.args) {
    if (const auto* nested = std::get_if<std::shared_ptr<ast::Expr>>(&arg); nested && *nested) {
      collect_from_expr(**nested, out);
    }
  }
}

}  // namespace

void collect_host_calls(const std::vector<ast::Clause>& clauses, std::vector<HostCall>* out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) collect_from_expr(e->expr, out);
  });
}

Status check_rule_host_calls(const std::vector<ast::Rule>& rules, const std::vector<ast::Clause>& where,
                             ExternalFunctions& external) {
  std::set<std::string> called;
  collect_calls(where, called);
  const std::set<std::string> reached = rules_reached(rules, std::move(called));
  for (const ast::Rule& rule : rules) {
    if (!reached.count(rule.name)) continue;
    std::vector<HostCall> calls;
    collect_host_calls(rule.body, &calls);
    for (const HostCall& call : calls) {
      DATALOG_RETURN_IF_ERROR(external.check_rule_call(rule.name, call.function, call.arity));
    }
  }
  return Status::OK();
}

}  // namespace datalog::eval
