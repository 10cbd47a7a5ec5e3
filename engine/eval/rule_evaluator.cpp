#include "engine/eval/rule_evaluator.h"

#include <fmt/format.h>

#include "engine/ast_walk.h"
#include "engine/analyzer.h"

namespace datalog::eval {

namespace {

// Calls at the top level of a body (where a delta can stand in for one of them), and whether
// any call to the stratum hides inside an or branch.
void top_level_calls(const std::vector<ast::Clause>& body, const std::set<std::string>& stratum,
                     std::vector<const ast::RuleCall*>& calls, bool& nested) {
  for (const auto& clause : body) {
    if (const auto* c = std::get_if<ast::RuleCall>(&clause.node)) {
      if (stratum.count(c->name)) calls.push_back(c);
    } else if (const auto* o = std::get_if<ast::Or>(&clause.node)) {
      std::set<std::string> inside;
      for (const auto& branch : o->branches) collect_calls(branch, inside);
      for (const auto& name : inside) {
        if (stratum.count(name)) nested = true;
      }
    }
  }
}

// The trace's line for one iteration of a stratum: its rules and how many new tuples they made.
TraceStep iteration_step(const std::vector<std::string>& names, std::int64_t iteration,
                         const std::map<std::string, TupleSet>& fresh) {
  std::size_t n = 0;
  for (const auto& [name, set] : fresh) n += set.size();
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : " ") + name;
  return TraceStep{fmt::format("rules [{}] iteration {}", joined, iteration + 1), "semi-naive", 0, n, 0};
}

}  // namespace

void collect_calls(const std::vector<ast::Clause>& clauses, std::set<std::string>& out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    if (const auto* c = std::get_if<ast::RuleCall>(&clause.node)) out.insert(c->name);
  });
}

std::set<std::string> rules_reached(const std::vector<ast::Rule>& rules, std::set<std::string> names) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& rule : rules) {
      if (!names.count(rule.name)) continue;
      std::set<std::string> calls;
      collect_calls(rule.body, calls);
      for (const auto& c : calls) grew |= names.insert(c).second;
    }
  }
  return names;
}

std::size_t RuleEvaluator::derived_count() const {
  std::size_t n = 0;
  for (const auto& [name, set] : full_) n += set.size();
  return n;
}

Status RuleEvaluator::derive(const std::set<std::string>& needed, Trace* trace) {
  // Everything the needed rules depend on.
  const std::set<std::string> closure = rules_reached(rules_, needed);
  std::vector<std::vector<std::string>> strata;
  DATALOG_RETURN_IF_ERROR(stratify(rules_, &strata));
  for (const auto& stratum : strata) {
    std::vector<std::string> names;
    for (const auto& n : stratum) {
      if (closure.count(n)) names.push_back(n);
    }
    if (!names.empty()) DATALOG_RETURN_IF_ERROR(derive_stratum(names, trace));
  }
  return Status::OK();
}

// A rule of the stratum being derived, with the calls in its body that a delta can stand in for.
struct RuleEvaluator::StratumRule {
  const ast::Rule* rule;
  std::vector<const ast::RuleCall*> recursive_calls;  // at the top level of the body
  bool nested = false;  // a call to the stratum inside an or branch: evaluated naively
};

Status RuleEvaluator::derive_stratum(const std::vector<std::string>& names, Trace* trace) {
  const std::set<std::string> stratum(names.begin(), names.end());
  for (const auto& n : names) lookup_.set_full(n, &full_[n]);
  const std::vector<StratumRule> rules = stratum_rules(stratum);
  std::map<std::string, TupleSet> delta;
  const Limits& limits = ctx_.limits();
  for (std::int64_t iteration = 0;; ++iteration) {
    if (iteration >= limits.max_iterations) {
      return max_iterations_exceeded(limits);
    }
    std::map<std::string, TupleSet> fresh;
    DATALOG_RETURN_IF_ERROR(derive_iteration(rules, iteration, delta, fresh));
    bool any = false;
    for (auto& [name, set] : fresh) {
      if (!set.empty()) any = true;
      full_[name].merge(set);
    }
    if (trace) trace->steps.push_back(iteration_step(names, iteration, fresh));
    if (static_cast<std::int64_t>(derived_count()) > limits.max_results) {
      return max_results_exceeded(limits);
    }
    if (!any) break;
    delta = std::move(fresh);
    // Sets not refreshed this round are empty deltas.
    for (const auto& n : names) delta[n];
  }
  return Status::OK();
}

std::vector<RuleEvaluator::StratumRule> RuleEvaluator::stratum_rules(const std::set<std::string>& stratum) const {
  std::vector<StratumRule> out;
  for (const auto& rule : rules_) {
    if (!stratum.count(rule.name)) continue;
    StratumRule r{&rule, {}, false};
    top_level_calls(rule.body, stratum, r.recursive_calls, r.nested);
    out.push_back(std::move(r));
  }
  return out;
}

Status RuleEvaluator::derive_iteration(const std::vector<StratumRule>& rules, std::int64_t iteration,
                                       std::map<std::string, TupleSet>& delta,
                                       std::map<std::string, TupleSet>& fresh) {
  std::int64_t produced = 0;
  for (const StratumRule& r : rules) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    if (iteration == 0 || r.nested) {
      lookup_.clear_overrides();
      DATALOG_RETURN_IF_ERROR(derive_rule(*r.rule, fresh, produced));
      continue;
    }
    for (const ast::RuleCall* call : r.recursive_calls) {
      lookup_.clear_overrides();
      lookup_.set_override(call, &delta[call->name]);
      DATALOG_RETURN_IF_ERROR(derive_rule(*r.rule, fresh, produced));
    }
  }
  lookup_.clear_overrides();
  return Status::OK();
}

Status RuleEvaluator::derive_rule(const ast::Rule& rule, std::map<std::string, TupleSet>& fresh,
                                  std::int64_t& produced) {
  Relation result;
  BodyEvaluator body(ctx_, lookup_, nullptr);
  DATALOG_RETURN_IF_ERROR(body.evaluate(rule.body, Relation::unit(), &result));
  std::vector<int> cols;
  for (const auto& term : rule.head) {
    const auto* v = std::get_if<ast::Variable>(&term);
    cols.push_back(v ? result.column(v->name) : -1);
  }
  TupleSet& target = fresh[rule.name];
  const TupleSet& known = full_[rule.name];
  for (RowView row : result.rows) {
    Row t;
    t.reserve(cols.size());
    for (std::size_t i = 0; i < cols.size(); ++i) {
      if (cols[i] >= 0) {
        t.push_back(ctx_.join_key(row[static_cast<std::size_t>(cols[i])]));
      } else if (const auto* c = std::get_if<Value>(&rule.head[i])) {
        t.push_back(ctx_.join_key(*c));
      } else {
        return Status(StatusCode::InvalidArgument,
                      fmt::format("rule '{}': head variable is not bound by its body", rule.name));
      }
    }
    ++produced;
    if (!known.contains(t)) target.insert(std::move(t));
  }
  const Limits& limits = ctx_.limits();
  if (produced > limits.max_derived_facts) {
    return max_derived_facts_exceeded(limits);
  }
  return Status::OK();
}

}  // namespace datalog::eval
