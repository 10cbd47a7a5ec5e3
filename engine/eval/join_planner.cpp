#include "engine/eval/join_planner.h"

#include <algorithm>
#include <optional>

#include "engine/eval/body_evaluator.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/name_map.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/eval/value_ranges.h"

namespace datalog::eval {

using ast::named_variable;

JoinPlanner::JoinPlanner(EvalContext& ctx, const DerivedLookup& derived,
                         const std::vector<ast::Clause>& clauses)
    : ctx_(ctx), derived_(derived), clauses_(clauses), comparisons_(comparison_filters(clauses)) {
  // Rule bodies are planned once per iteration of their stratum: keep what does not change.
  binds_.reserve(clauses.size());
  for (const auto& clause : clauses) binds_.push_back(clause_binds(clause));
}

Status JoinPlanner::next(const Relation& rel, const std::vector<bool>& done, PlanStep* step) const {
  // Variables that clauses still to run can bind.
  NameMap<bool> bindable;
  for (std::size_t i = 0; i < clauses_.size(); ++i) {
    if (done[i]) continue;
    for (const std::string& name : binds_[i]) bindable.insert(name, true);
  }
  const double rows = static_cast<double>(rel.rows.size());
  PlanStep best;
  for (std::size_t i = 0; i < clauses_.size(); ++i) {
    if (done[i]) continue;
    PlanStep c;
    c.index = i;
    const ast::Clause& clause = clauses_[i];
    if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) {
      std::vector<std::string> inputs;
      expr_variables(e->expr, inputs);
      if (std::all_of(inputs.begin(), inputs.end(), [&](const std::string& v) { return rel.binds(v); })) {
        c.cost = 0;
        c.estimate = rows;
        c.access = "filter";
      }
    } else if (const auto* n = std::get_if<ast::Not>(&clause.node)) {
      std::vector<std::string> keys;
      if (n->is_join) {
        for (const auto& v : n->join_vars) keys.push_back(v.name);
      } else {
        for (const auto& v : clause_variables(clause)) {
          if (rel.binds(v) || bindable.count(v)) keys.push_back(v);
        }
      }
      if (std::all_of(keys.begin(), keys.end(), [&](const std::string& v) { return rel.binds(v); })) {
        c.cost = 1;
        c.estimate = rows;
        c.access = "hash anti-join";
      }
    } else if (const auto* pseudo = std::get_if<ast::Pattern>(&clause.node);
               pseudo && is_pseudo_pattern(*pseudo)) {
      // Reads the metadata of a fact an earlier pattern on the same entity matched: after it.
      const auto* ev = named_variable(pseudo->e);
      bool ready = !ev || rel.binds(ev->name) || !bindable.count(ev->name);
      const std::string key = entity_key(pseudo->e);
      for (std::size_t j = 0; j < i && ready; ++j) {
        const auto* q = std::get_if<ast::Pattern>(&clauses_[j].node);
        if (q && !done[j] && !is_pseudo_pattern(*q) && entity_key(q->e) == key) ready = false;
      }
      if (ready) {
        c.cost = 0.25;
        c.estimate = rows;
        c.access = "temporal metadata";
      }
    } else if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      DATALOG_RETURN_IF_ERROR(cost_pattern(*p, rel, &c));
    } else if (const auto* call = std::get_if<ast::RuleCall>(&clause.node)) {
      cost_rule_call(*call, rel, &c);
    } else if (const auto* o = std::get_if<ast::Or>(&clause.node)) {
      // Ready at once: its branches read what is bound so far, and an or-join's unbound join
      // variables come out of them. Its cost grows with the rows, so a selective pattern that
      // binds a join variable still goes first; unbound, a few selective branches beat probing
      // them once per row of a large scan.
      c.cost = 50.0 + rows * static_cast<double>(o->branches.size()) * kSeekCost;
      c.estimate = rows;
      c.access = "union of branches";
    }
    if (c.cost < best.cost) best = std::move(c);
  }
  if (best.cost == kUnready) {
    // Only clauses waiting for variables nothing binds: let the first one report why.
    best.index = static_cast<std::size_t>(std::find(done.begin(), done.end(), false) - done.begin());
    best.access = "last resort";
  }
  *step = std::move(best);
  return Status::OK();
}

// Rows per probe with the relation's variables fixed, against one scan of the whole pattern.
Status JoinPlanner::cost_pattern(const ast::Pattern& p, const Relation& rel, PlanStep* c) const {
  DatomFilter probe, whole;
  bool impossible = false;
  std::optional<EntityId> id;
  if (const auto* cv = std::get_if<Value>(&p.e)) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(*cv, &id));
    if (!id) impossible = true;
    probe.e = whole.e = id.value_or(0);
  } else if (const auto* v = named_variable(p.e); v && rel.binds(v->name)) {
    probe.e = 0;
  }
  if (const auto* cv = std::get_if<Value>(&p.a)) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_attribute(*cv, &id));
    if (!id) impossible = true;
    probe.a = whole.a = id.value_or(0);
  }
  if (const auto* cv = std::get_if<Value>(&p.v)) {
    probe.v = whole.v = *cv;
  } else if (const auto* v = named_variable(p.v); v && rel.binds(v->name)) {
    probe.v = Value::ref(0);
  } else {
    c->v_ranges = value_ranges_for(p, rel, comparisons_);
    probe.v_ranges = whole.v_ranges = c->v_ranges;
  }
  bool shares = false;
  for (const ast::Term* t : {&p.e, &p.a, &p.v}) {
    if (const auto* v = named_variable(*t); v && rel.binds(v->name)) shares = true;
  }
  if (impossible) {
    c->cost = 0.5;
    c->estimate = 0;
    c->access = "no match (unknown ident)";
    return Status::OK();
  }
  const double rows = static_cast<double>(rel.rows.size());
  const double per_probe = ctx_.graph().estimate(probe);
  const double one_scan = ctx_.graph().estimate(whole);
  const double nested = rows * (kSeekCost + per_probe);
  const double hashed = one_scan + kSeekCost + rows;
  if (shares && hashed < nested) {
    c->cost = hashed;
    c->hash_join = true;
    c->access = "hash join (one scan)";
  } else {
    c->cost = nested;
    c->access = shares ? "index lookup per row" : (rows <= 1 ? "index scan" : "cross product");
  }
  c->estimate = std::max(rows * per_probe, 0.0);
  if (!shares && rows > 1) c->cost *= 4;  // avoid cross products while anything else can run
  return Status::OK();
}

std::vector<ValueRange> JoinPlanner::value_ranges_for(
    const ast::Pattern& p, const Relation& rel,
    const std::vector<const ast::ExprClause*>& comparisons) {
  // The body's comparisons on a value this pattern binds narrow its scan (value_ranges.h).
  const auto* v = named_variable(p.v);
  if (!v || rel.binds(v->name) || !std::holds_alternative<Value>(p.a)) return {};
  return value_ranges(v->name, comparisons);
}

void JoinPlanner::cost_rule_call(const ast::RuleCall& call, const Relation& rel, PlanStep* c) const {
  const TupleSet* t = derived_.tuples_for(call);
  const double size = t ? static_cast<double>(t->size()) : 0.0;
  const double rows = static_cast<double>(rel.rows.size());
  bool bound = false;
  for (const auto& a : call.args) {
    if (std::holds_alternative<Value>(a)) bound = true;
    if (const auto* v = named_variable(a); v && rel.binds(v->name)) bound = true;
  }
  c->cost = bound ? size + rows : std::max(rows, 1.0) * std::max(size, 1.0);
  c->estimate = bound ? std::min(size, rows * 4) : rows * size;
  c->access = bound ? "hash join on derived tuples" : "derived tuples";
}

}  // namespace datalog::eval
