// engine/eval/expression_step.cpp: an expression clause over the relation: a filter keeps rows in
// place; a binding adds a column (or, bound already, keeps the rows whose value it equals).
#include "engine/eval/body_evaluator.h"

#include <algorithm>

#include "engine/eval/expression_eval.h"
#include "engine/eval/value_ranges.h"

namespace datalog::eval {

using ast::named_variable;

Status BodyEvaluator::apply_expression(const ast::ExprClause& c, Relation& rel,
                                       const std::vector<std::string>& in_range) {
  if (!c.out) {
    // A filter keeps rows in place. One that compares a variable with an integer constant need
    // not run on the integer values a scan already held to its range.
    int skip_col = -1;
    std::vector<std::string> inputs;
    expr_variables(c.expr, inputs);
    if (inputs.size() == 1 && std::find(in_range.begin(), in_range.end(), inputs[0]) != in_range.end() &&
        exact_on_integers(c, inputs[0])) {
      skip_col = rel.column(inputs[0]);
    }
    std::vector<Value> produced;
    Status st;
    rel.rows.keep_if([&](RowView row) {
      if (!st.ok()) return false;
      if (skip_col >= 0 && row[static_cast<std::size_t>(skip_col)].is(ValueKind::Integer)) return true;
      st = ctx_.check_interrupt();
      produced.clear();
      if (st.ok()) st = evaluate_clause_expression(ctx_, c, rel, row, &produced);
      return st.ok() && !produced.empty();  // one truthy marker when the row stays
    });
    return st;
  }
  Relation out;
  out.vars = rel.vars;
  int out_col = -1;
  bool out_bound = false;
  if (c.out && !c.out->is_wildcard()) {
    out_col = rel.column(c.out->name);
    out_bound = out_col >= 0;
    if (!out_bound) {
      out.vars.push_back(c.out->name);
      out_col = static_cast<int>(out.vars.size()) - 1;
    }
  }
  std::vector<Value> produced;
  for (std::span<Value> row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    produced.clear();
    DATALOG_RETURN_IF_ERROR(evaluate_clause_expression(ctx_, c, rel, row, &produced));
    for (Value& v : produced) {
      if (c.out->is_wildcard()) {
        out.rows.push_back(RowView(row));
      } else if (out_bound) {
        if (ctx_.join_key(row[static_cast<std::size_t>(out_col)]) == ctx_.join_key(v)) {
          out.rows.push_back(RowView(row));
        }
      } else {
        out.rows.push_back_widened(row, row.size() + 1).back() = std::move(v);
      }
    }
  }
  rel = std::move(out);
  return Status::OK();
}

}  // namespace datalog::eval
