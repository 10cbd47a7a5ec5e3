// engine/eval/rule_call_join.cpp: a rule call joined to the tuples the rule derived, through a hash
// index on the bound argument positions.
#include "engine/eval/body_evaluator.h"

#include <fmt/format.h>

#include "engine/eval/term_role.h"

namespace datalog::eval {

using ast::named_variable;

Status BodyEvaluator::apply_rule_call(const ast::RuleCall& call, Relation& rel) {
  const TupleSet* tuples = derived_.tuples_for(call);
  Relation out;
  out.vars = rel.vars;
  std::vector<TermRole> args(call.args.size());
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const ast::Term& t = call.args[i];
    if (const auto* c = std::get_if<Value>(&t)) {
      args[i] = TermRole{TermRole::Kind::Constant, -1, ctx_.join_key(*c)};
    } else if (const auto* v = named_variable(t)) {
      if (const int col = rel.column(v->name); col >= 0) {
        args[i] = TermRole{TermRole::Kind::Bound, col, {}};
      } else if (const int o = out.column(v->name); o >= 0) {
        args[i] = TermRole{TermRole::Kind::Repeat, o, {}};
      } else {
        out.vars.push_back(v->name);
        args[i] = TermRole{TermRole::Kind::Free, static_cast<int>(out.vars.size()) - 1, {}};
      }
    } else if (const auto* s = std::get_if<ast::Slot>(&t)) {
      return Status(StatusCode::InvalidArgument, fmt::format("missing bind value for slot '${}'", s->name));
    }
  }
  if (!tuples || tuples->empty()) {
    rel = std::move(out);
    rel.rows.clear();
    return Status::OK();
  }
  // Probe the set's index on the constant and bound positions (tuples hold join keys).
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < args.size() && i < 64; ++i) {
    if (args[i].kind == TermRole::Kind::Constant || args[i].kind == TermRole::Kind::Bound) mask |= std::uint64_t{1} << i;
  }
  Row key;
  const auto key_of_row = [&](RowView row) {
    key.clear();
    for (const TermRole& a : args) {
      if (a.kind == TermRole::Kind::Constant) key.push_back(a.constant);
      if (a.kind == TermRole::Kind::Bound) key.push_back(ctx_.join_key(row[static_cast<std::size_t>(a.column)]));
    }
  };
  const auto extend = [&](RowView row, const Row& t) {
    std::span<Value> next = out.rows.push_back_widened(row, out.vars.size());
    bool ok = true;
    for (std::size_t i = 0; i < args.size() && ok; ++i) {
      if (args[i].kind == TermRole::Kind::Free) next[static_cast<std::size_t>(args[i].column)] = t[i];
      if (args[i].kind == TermRole::Kind::Repeat) {
        ok = ctx_.join_key(next[static_cast<std::size_t>(args[i].column)]) == ctx_.join_key(t[i]);
      }
    }
    if (!ok) out.rows.pop_back();
  };
  if (rel.rows.size() == 1 && args.size() <= 64 && tuples->first_probe_without_index(mask)) {
    // One row (a call with constants, as a body's first clause): one pass over the tuples costs
    // less than the index it would probe once. The tuples come in the index's order.
    const RowView row = rel.rows[0];
    key_of_row(row);
    for (const Row& t : *tuples) {
      DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
      std::size_t k = 0;
      bool match = true;
      for (std::size_t i = 0; i < args.size() && match; ++i) {
        if (mask & (std::uint64_t{1} << i)) match = t[i] == key[k++];
      }
      if (match) extend(row, t);
    }
    rel = std::move(out);
    return Status::OK();
  }
  const TupleSet::Index& index = tuples->index(mask);
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key_of_row(row);
    auto it = index.find(key);
    if (it == index.end()) continue;
    for (const Row* tuple : it->second) extend(row, *tuple);
  }
  rel = std::move(out);
  return Status::OK();
}


}  // namespace datalog::eval
