#include "engine/eval/body_evaluator.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "engine/ast_text.h"
#include "engine/ast_walk.h"
#include "engine/eval/closure.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/join_planner.h"
#include "engine/eval/name_map.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/eval/value_ranges.h"

namespace datalog::eval {

using ast::named_variable;

namespace {

template <class Visit>
void each_expr_variable(const ast::Expr& e, Visit& visit) {
  for (const auto& arg : e.args) {
    if (const auto* v = std::get_if<ast::Variable>(&arg); v && !v->is_wildcard()) {
      visit(std::string_view(v->name));
    } else if (const auto* sub = std::get_if<std::shared_ptr<ast::Expr>>(&arg); sub && *sub) {
      each_expr_variable(**sub, visit);
    }
  }
}

// Calls visit(name) for each variable a clause mentions, in order of appearance, as views into
// the clause, repeats included (clause_variables() lists them once each).
template <class Visit>
void each_clause_variable(const ast::Clause& clause, Visit&& visit) {
  ast::walk_clause(clause, [&](const ast::Clause& c) {
    ast::for_each_term(c, [&](const ast::Term& t) {
      if (const auto* v = named_variable(t)) visit(std::string_view(v->name));
    });
    if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) {
      each_expr_variable(e->expr, visit);
      if (e->out && !e->out->is_wildcard()) visit(std::string_view(e->out->name));
    }
  });
}

}  // namespace

std::vector<std::string> clause_variables(const ast::Clause& clause) {
  std::vector<std::string> out;
  out.reserve(4);  // a pattern names at most three: one allocation, not three as it grows
  each_clause_variable(clause, [&](std::string_view v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.emplace_back(v);
  });
  return out;
}

std::vector<std::string> clause_binds(const ast::Clause& clause) {
  if (std::holds_alternative<ast::Not>(clause.node)) return {};
  if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) {
    if (e->out && !e->out->is_wildcard()) return {e->out->name};
    return {};
  }
  if (const auto* o = std::get_if<ast::Or>(&clause.node); o && o->is_join) {
    std::vector<std::string> out;
    for (const auto& v : o->join_vars) add_variable(out, v.name);
    return out;
  }
  return clause_variables(clause);
}

namespace {

void collect_pseudo_entities(const std::vector<ast::Clause>& clauses,
                             std::map<std::string, unsigned>& out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (const unsigned needs = meta_needed(*p)) out[entity_key(p->e)] |= needs;
    }
  });
}

}  // namespace

namespace {

std::uint64_t mask_of(const std::vector<bool>& done) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < done.size(); ++i) {
    if (done[i]) mask |= std::uint64_t{1} << i;
  }
  return mask;
}

// The clauses grouped into parts that share no variable (a variable of the input counts as
// shared by every clause that names it), each part in written order, parts in order of their
// first clause. The part that names an input variable comes first.
std::vector<std::vector<std::size_t>> independent_parts(const std::vector<ast::Clause>& clauses,
                                                        const Relation& input) {
  std::vector<std::size_t> parent(clauses.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  NameMap<std::size_t> first_user;  // the first clause to name each variable
  std::vector<std::string> entity_names;  // first_user's keys that are not in the clauses
  entity_names.reserve(clauses.size());   // never moved: first_user holds views of them
  constexpr std::size_t kInput = static_cast<std::size_t>(-1);
  std::size_t input_part = kInput;
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    const auto join = [&](std::string_view v) {
      if (std::find(input.vars.begin(), input.vars.end(), v) != input.vars.end()) {  // binds(v)
        if (input_part == kInput) input_part = i;
        parent[root(i)] = root(input_part);
      }
      if (const std::size_t* user = first_user.find(v)) parent[root(i)] = root(*user);
      else first_user.insert(v, i);
    };
    each_clause_variable(clauses[i], join);
    // A temporal pseudo-pattern reads the metadata of the real pattern on the same entity, a
    // constant one too ([:a :job ?j] [:a :db/valid-from ?f]): the same part.
    if (const auto* p = std::get_if<ast::Pattern>(&clauses[i].node);
        p && std::holds_alternative<Value>(p->e)) {
      entity_names.push_back("#entity " + entity_key(p->e));
      join(entity_names.back());
    }
  }
  std::vector<std::vector<std::size_t>> parts;
  std::vector<std::size_t> part_of_root(clauses.size(), kInput);
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    std::size_t& part = part_of_root[root(i)];
    if (part == kInput) {
      part = parts.size();
      parts.emplace_back();
    }
    parts[part].push_back(i);
  }
  if (input_part != kInput) {
    const std::size_t first = part_of_root[root(input_part)];
    std::rotate(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(first),
                parts.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  }
  return parts;
}

}  // namespace

Status BodyEvaluator::evaluate(const std::vector<ast::Clause>& clauses, Relation input,
                               Relation* out, int depth) {
  if (depth == 0) collect_pseudo_entities(clauses, pseudo_entities_);
  if (clauses.size() < 2) return evaluate_part(clauses, {}, std::move(input), out, depth);
  const std::vector<std::vector<std::size_t>> parts = independent_parts(clauses, input);
  if (parts.size() < 2) return evaluate_part(clauses, {}, std::move(input), out, depth);
  // Parts that share no variable are evaluated alone, each with its own filters, and only their
  // results are multiplied: a cross product of the unfiltered scans could be millions of rows
  // that the filters then drop. An empty part makes the whole body empty.
  std::vector<Relation> results;
  std::vector<std::string> all_vars;
  bool empty = false;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    std::vector<bool> elsewhere(clauses.size(), true);
    for (std::size_t i : parts[k]) elsewhere[i] = false;
    if (empty) {
      for (std::size_t i : parts[k]) {
        for (const std::string& v : clause_binds(clauses[i])) add_variable(all_vars, v);
      }
      continue;
    }
    Relation part;
    DATALOG_RETURN_IF_ERROR(evaluate_part(clauses, elsewhere, k == 0 ? std::move(input) : Relation::unit(),
                                          &part, depth));
    for (const std::string& v : part.vars) add_variable(all_vars, v);
    empty = part.rows.size() == 0;
    results.push_back(std::move(part));
  }
  if (empty) {
    out->vars = std::move(all_vars);
    out->rows = RowStore();
    return Status::OK();
  }
  Relation product = std::move(results.front());
  for (std::size_t k = 1; k < results.size(); ++k) {
    DATALOG_RETURN_IF_ERROR(cross_product(std::move(product), results[k], &product));
  }
  if (trace_) {
    trace_->steps.push_back(TraceStep{fmt::format("{} parts with no variable in common", parts.size()),
                                      "cross product of their results", 0, product.rows.size(), depth});
  }
  *out = std::move(product);
  return Status::OK();
}

Status BodyEvaluator::cross_product(Relation left, const Relation& right, Relation* out) {
  Relation product;
  product.vars = left.vars;
  product.vars.insert(product.vars.end(), right.vars.begin(), right.vars.end());
  Row row;
  for (RowView l : left.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    for (RowView r : right.rows) {
      DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
      row.assign(l.begin(), l.end());
      row.insert(row.end(), r.begin(), r.end());
      product.rows.push_back(std::move(row));
    }
  }
  *out = std::move(product);
  return Status::OK();
}

Status BodyEvaluator::evaluate_part(const std::vector<ast::Clause>& clauses, const std::vector<bool>& elsewhere,
                                    Relation input, Relation* out, int depth) {
  Relation rel = std::move(input);
  std::vector<std::string> in_range;
  std::vector<bool> done = elsewhere.empty() ? std::vector<bool>(clauses.size(), false) : elsewhere;
  std::size_t remaining = static_cast<std::size_t>(std::count(done.begin(), done.end(), false));
  StepMemo* memo = depth == 0 && clauses.size() <= StepMemo::kMaxClauses ? memo_ : nullptr;
  std::optional<JoinPlanner> planner;  // made only when a step is not in the memo
  std::optional<std::vector<const ast::ExprClause*>> comparisons;
  while (remaining > 0) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    PlanStep best;
    const std::uint64_t done_mask = memo ? mask_of(done) : 0;
    if (const PlanStep* known =
            memo ? memo->find(memo_call_, done_mask, rel.rows.size()) : nullptr) {
      best = *known;
      if (const auto* p = std::get_if<ast::Pattern>(&clauses[best.index].node)) {
        if (!comparisons) comparisons = comparison_filters(clauses);
        best.v_ranges = JoinPlanner::value_ranges_for(*p, rel, *comparisons);
      }
    } else {
      if (!planner) planner.emplace(ctx_, derived_, clauses);
      DATALOG_RETURN_IF_ERROR(planner->next(rel, done, &best));
      if (memo) memo->add(memo_call_, done_mask, rel.rows.size(), best);
    }
    DATALOG_RETURN_IF_ERROR(apply(clauses[best.index], rel, depth, best.estimate,
                                  best.hash_join ? std::string_view("hash") : best.access,
                                  static_cast<int>(best.index), best.v_ranges, in_range));
    done[best.index] = true;
    --remaining;
  }
  *out = std::move(rel);
  return Status::OK();
}

Status BodyEvaluator::apply(const ast::Clause& clause, Relation& rel, int depth, double estimate,
                            std::string_view access, int order,
                            const std::vector<ValueRange>& v_ranges,
                            std::vector<std::string>& in_range) {
  Status st;
  std::string_view shown_access = access;  // for the trace
  bool values_in_range = false;
  if (const auto* p = std::get_if<ast::Pattern>(&clause.node); p && is_pseudo_pattern(*p)) {
    st = apply_pseudo_pattern(ctx_, *p, rel);
    shown_access = "temporal metadata";
  } else if (p) {
    // The scan holds ?v to v_ranges only where the value position binds it (not a repeat of e).
    const auto* v = named_variable(p->v);
    const auto* e = named_variable(p->e);
    const bool binds_v = v && !rel.binds(v->name) && !(e && e->name == v->name);
    st = apply_pattern(*p, rel, access == "hash", order, v_ranges);
    if (st.ok() && binds_v && !v_ranges.empty()) in_range.push_back(v->name);
    if (access == "hash") shown_access = "hash join (one scan)";
    values_in_range = !v_ranges.empty();
  } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) {
    st = apply_expression(*e, rel, in_range);
  } else if (const auto* n = std::get_if<ast::Not>(&clause.node)) {
    st = apply_not(*n, rel, depth);
  } else if (const auto* o = std::get_if<ast::Or>(&clause.node)) {
    st = apply_or(*o, rel, depth);
  } else if (const auto* c = std::get_if<ast::RuleCall>(&clause.node)) {
    st = apply_rule_call(*c, rel);
  }
  if (trace_) {
    std::string text = format_clause(clause);
    if (const auto* call = std::get_if<ast::RuleCall>(&clause.node)) {
      ast::RuleCall as_written = *call;  // a closure set's call shows the user's rule name
      as_written.name = rule_name_as_written(call->name);
      text = format_clause(ast::Clause{as_written});
    }
    std::string shown(shown_access);
    if (values_in_range) shown += ", values in range";
    trace_->steps.push_back(TraceStep{std::move(text), std::move(shown), estimate, rel.rows.size(), depth});
  }
  return st;
}

}  // namespace datalog::eval
