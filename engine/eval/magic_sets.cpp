#include "engine/eval/magic_sets.h"

#include <deque>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "engine/eval/body_evaluator.h"
#include "engine/eval/rule_evaluator.h"

namespace datalog::eval {

namespace {

using Adornment = std::string;  // one 'b' or 'f' per argument

std::string adorned_name(const std::string& name, const Adornment& a) { return name + "#" + a; }
std::string magic_name(const std::string& name, const Adornment& a) { return "magic#" + name + "#" + a; }

bool is_bound(const ast::Term& t, const std::set<std::string>& bound) {
  if (std::holds_alternative<Value>(t)) return true;
  if (const auto* v = std::get_if<ast::Variable>(&t)) return !v->is_wildcard() && bound.count(v->name);
  return false;
}

Adornment adornment_of(const std::vector<ast::Term>& args, const std::set<std::string>& bound) {
  Adornment a;
  for (const auto& t : args) a += is_bound(t, bound) ? 'b' : 'f';
  return a;
}

std::vector<ast::Term> bound_args(const std::vector<ast::Term>& args, const Adornment& a) {
  std::vector<ast::Term> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (a[i] == 'b') out.push_back(args[i]);
  }
  return out;
}

ast::Clause call_clause(std::string name, std::vector<ast::Term> args, ast::SourcePos pos) {
  return ast::Clause{ast::RuleCall{std::move(name), std::move(args), pos}};
}

// Inputs a filter clause needs bound before it can run (expressions, not).
std::vector<std::string> needs(const ast::Clause& c, const std::set<std::string>& bindable) {
  std::vector<std::string> out;
  if (std::holds_alternative<ast::ExprClause>(c.node)) {
    const auto& e = std::get<ast::ExprClause>(c.node);
    for (const auto& v : clause_variables(c)) {
      if (!e.out || v != e.out->name) out.push_back(v);
    }
  } else if (const auto* n = std::get_if<ast::Not>(&c.node)) {
    if (n->is_join) {
      for (const auto& v : n->join_vars) out.push_back(v.name);
    } else {
      for (const auto& v : clause_variables(c)) {
        if (bindable.count(v)) out.push_back(v);
      }
    }
  }
  return out;
}

// The order in which a body binds variables, starting from bound (sideways information passing):
// filters as soon as their inputs are bound; then clauses that share a bound variable or hold a
// constant; then the rest in written order, filters last.
std::vector<std::size_t> sips_order(const std::vector<ast::Clause>& body, std::set<std::string> bound) {
  std::set<std::string> bindable;
  for (const auto& c : body) {
    for (const auto& v : clause_binds(c)) bindable.insert(v);
  }
  std::vector<std::size_t> order;
  std::vector<bool> used(body.size(), false);
  while (order.size() < body.size()) {
    std::size_t pick = body.size();
    for (std::size_t i = 0; i < body.size() && pick == body.size(); ++i) {
      if (used[i]) continue;
      const bool filter = std::holds_alternative<ast::ExprClause>(body[i].node) ||
                          std::holds_alternative<ast::Not>(body[i].node);
      if (!filter) continue;
      bool ready = true;
      for (const auto& v : needs(body[i], bindable)) ready &= bound.count(v) > 0;
      if (ready) pick = i;
    }
    for (std::size_t i = 0; i < body.size() && pick == body.size(); ++i) {
      if (used[i] || std::holds_alternative<ast::ExprClause>(body[i].node) ||
          std::holds_alternative<ast::Not>(body[i].node)) {
        continue;
      }
      bool connected = false;
      for (const auto& v : clause_variables(body[i])) connected |= bound.count(v) > 0;
      if (const auto* p = std::get_if<ast::Pattern>(&body[i].node)) {
        connected |= std::holds_alternative<Value>(p->e) || std::holds_alternative<Value>(p->v);
      }
      if (connected) pick = i;
    }
    // Else the first pattern or call left: an expression or `not` whose inputs are not bound
    // yet waits for them (placed first, it would fail as unbound in a demand rule's body).
    for (std::size_t i = 0; i < body.size() && pick == body.size(); ++i) {
      const bool filter = std::holds_alternative<ast::ExprClause>(body[i].node) ||
                          std::holds_alternative<ast::Not>(body[i].node);
      if (!used[i] && !filter) pick = i;
    }
    for (std::size_t i = 0; i < body.size() && pick == body.size(); ++i) {
      if (!used[i]) pick = i;
    }
    used[pick] = true;
    order.push_back(pick);
    for (const auto& v : clause_binds(body[pick])) bound.insert(v);
  }
  return order;
}

int recursive_calls_in(const ast::Rule& rule, const std::string& name) {
  int n = 0;
  for (const auto& clause : rule.body) {
    if (const auto* c = std::get_if<ast::RuleCall>(&clause.node); c && c->name == name) ++n;
  }
  return n;
}

class Rewriter {
 public:
  explicit Rewriter(const std::vector<ast::Rule>& rules) : rules_(rules) {
    for (const auto& r : rules) idb_.insert(r.name);
  }

  // The call to use for name(args) given bound variables; schedules its adorned rules.
  ast::Clause demand(const ast::RuleCall& call, const Adornment& a) {
    if (a.find('b') == std::string::npos) return ast::Clause{call};
    if (done_.insert({call.name, a}).second) todo_.emplace_back(call.name, a);
    return call_clause(adorned_name(call.name, a), call.args, call.pos);
  }

  bool is_rule(const std::string& name) const { return idb_.count(name) > 0; }

  void run() {
    while (!todo_.empty()) {
      auto [name, a] = todo_.front();
      todo_.pop_front();
      for (const auto& rule : rules_) {
        if (rule.name == name && rule.head.size() == a.size()) adorn(rule, a);
      }
    }
  }

  // Right-linear rules called with their bound arguments fixed, such as
  //   (reach ?x ?y) :- [?x :next ?y]     (reach ?x ?y) :- [?x :next ?z] (reach ?z ?y)
  // answer a call from the demand alone ("factoring"): every answer of (reach c ?y) is an answer
  // of an exit rule for some demanded value, so
  //   answer#reach#bf(?y) :- (magic#reach#bf ?x), [?x :next ?y]
  // is linear where the adorned rules derive a tuple per pair (quadratic on a chain).
  // Conditions: each recursive rule calls p#a exactly once, at the top level, passing its free
  // head variables through unchanged, and uses them nowhere else; no other rule of p is called.
  bool factorable(const std::string& name, const Adornment& a) const {
    bool any_exit = false;
    for (const auto& rule : rules_) {
      if (rule.name != name) continue;
      if (rule.head.size() != a.size()) return false;
      std::set<std::string> free_vars;
      for (std::size_t i = 0; i < a.size(); ++i) {
        const auto* v = std::get_if<ast::Variable>(&rule.head[i]);
        if (a[i] == 'f') {
          if (!v || v->is_wildcard() || !free_vars.insert(v->name).second) return false;
        }
      }
      const bool recursive = recursive_calls_in(rule, name) > 0;
      int recursive_calls = 0;
      for (const auto& clause : rule.body) {
        const auto* call = std::get_if<ast::RuleCall>(&clause.node);
        if (call && call->name == name) {
          ++recursive_calls;
          if (call->args.size() != a.size()) return false;
          for (std::size_t i = 0; i < a.size(); ++i) {
            const auto* v = std::get_if<ast::Variable>(&call->args[i]);
            const auto* h = std::get_if<ast::Variable>(&rule.head[i]);
            if (a[i] == 'f' && (!v || !h || v->name != h->name)) return false;
            if (a[i] == 'b' && v && free_vars.count(v->name)) return false;
          }
          continue;
        }
        std::set<std::string> inside;
        collect_calls({clause}, inside);
        if (inside.count(name)) return false;  // a recursive call hidden in not / or
        if (recursive) {
          for (const auto& v : clause_variables(clause)) {
            if (free_vars.count(v)) return false;  // the free variables only pass through
          }
        }
      }
      if (recursive_calls > 1) return false;
      if (recursive_calls == 0) any_exit = true;
    }
    return any_exit;
  }

  // answer#p#a(free head args) :- (magic#p#a bound head args), body — one per exit rule.
  void add_answers(const std::string& name, const Adornment& a) {
    for (const auto& rule : rules_) {
      if (rule.name != name || recursive_calls_in(rule, name) > 0) continue;
      ast::Rule answer;
      answer.name = answer_name(name, a);
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (a[i] == 'f') answer.head.push_back(rule.head[i]);
      }
      answer.body.push_back(call_clause(magic_name(name, a), bound_args(rule.head, a), rule.pos));
      for (const auto& clause : rule.body) answer.body.push_back(clause);
      answer.pos = rule.pos;
      out_.push_back(std::move(answer));
    }
  }

  static std::string answer_name(const std::string& name, const Adornment& a) {
    return "answer#" + name + "#" + a;
  }

  std::vector<ast::Rule> take() { return std::move(out_); }

  // A magic rule, remembering which rule (or "#query") demands through it.
  void add_demand(ast::Rule r, const std::string& source) {
    demand_sources_[r.name].insert(source);
    out_.push_back(std::move(r));
  }
  // Whether p#a is demanded only by the query and by p's own recursion.
  bool sole_demand_is_query(const std::string& name, const Adornment& a) const {
    auto it = demand_sources_.find(magic_name(name, a));
    if (it == demand_sources_.end()) return false;
    for (const auto& source : it->second) {
      if (source != "#query" && source != name) return false;
    }
    return true;
  }

 private:
  void adorn(const ast::Rule& rule, const Adornment& a) {
    std::set<std::string> bound;
    for (std::size_t i = 0; i < rule.head.size(); ++i) {
      if (a[i] != 'b') continue;
      if (const auto* v = std::get_if<ast::Variable>(&rule.head[i]); v && !v->is_wildcard()) bound.insert(v->name);
    }
    const ast::Clause magic = call_clause(magic_name(rule.name, a), bound_args(rule.head, a), rule.pos);
    std::vector<ast::Clause> body{magic};
    for (std::size_t idx : sips_order(rule.body, bound)) {
      const ast::Clause& clause = rule.body[idx];
      const auto* call = std::get_if<ast::RuleCall>(&clause.node);
      if (call && is_rule(call->name)) {
        const Adornment b = adornment_of(call->args, bound);
        if (b.find('b') != std::string::npos) {
          // Demand for the callee: what this rule has bound when it reaches the call.
          ast::Rule m;
          m.name = magic_name(call->name, b);
          m.head = bound_args(call->args, b);
          m.body = body;
          m.pos = call->pos;
          add_demand(std::move(m), rule.name);
        }
        body.push_back(demand(*call, b));
      } else {
        body.push_back(clause);
      }
      for (const auto& v : clause_binds(clause)) bound.insert(v);
    }
    ast::Rule adorned;
    adorned.name = adorned_name(rule.name, a);
    adorned.head = rule.head;
    adorned.body = std::move(body);
    adorned.source = rule.source;
    adorned.pos = rule.pos;
    out_.push_back(std::move(adorned));
  }

  const std::vector<ast::Rule>& rules_;
  std::set<std::string> idb_;
  std::set<std::pair<std::string, Adornment>> done_;
  std::deque<std::pair<std::string, Adornment>> todo_;
  std::vector<ast::Rule> out_;
  std::map<std::string, std::set<std::string>> demand_sources_;
};

}  // namespace

Status rewrite_for_demand(const std::vector<ast::Clause>& where,
                          const std::vector<ast::Rule>& rules, std::vector<ast::Clause>* where_out,
                          std::vector<ast::Rule>* rules_out, bool* applied) {
  *applied = false;
  Rewriter rewriter(rules);
  // The query body is treated like a rule body: calls see the variables earlier clauses bind.
  std::set<std::string> bound;
  std::vector<ast::Clause> rewritten;
  std::map<std::string, int> demands;           // adorned name -> calls of the query
  std::map<std::string, int> constant_demands;  // adorned name -> calls with constants only
  for (std::size_t idx : sips_order(where, bound)) {
    const ast::Clause& clause = where[idx];
    const auto* call = std::get_if<ast::RuleCall>(&clause.node);
    const Adornment a = call ? adornment_of(call->args, bound) : Adornment();
    if (!call || !rewriter.is_rule(call->name) || a.find('b') == std::string::npos) {
      rewritten.push_back(clause);
      for (const auto& v : clause_binds(clause)) bound.insert(v);
      continue;
    }
    // The demand: the bound arguments' values, from constants or from the clauses before.
    ast::Rule demand;
    demand.name = magic_name(call->name, a);
    demand.head = bound_args(call->args, a);
    bool constants_only = true;
    for (const auto& t : demand.head) constants_only &= std::holds_alternative<Value>(t);
    if (!constants_only) demand.body = rewritten;
    demand.pos = call->pos;
    rewriter.add_demand(std::move(demand), "#query");
    ++demands[adorned_name(call->name, a)];
    if (constants_only) ++constant_demands[adorned_name(call->name, a)];
    rewritten.push_back(rewriter.demand(*call, a));
    for (const auto& v : clause_binds(clause)) bound.insert(v);
    *applied = true;
  }
  if (!*applied) return Status::OK();
  rewriter.run();
  // A call whose rule can be factored reads the answers of its demand directly, when the
  // demand is this call's constants alone: answers keep only the free arguments, so the
  // answers of two demands (two calls, or one with constants and one with a variable) would mix.
  for (auto& clause : rewritten) {
    auto* c = std::get_if<ast::RuleCall>(&clause.node);
    if (!c || constant_demands[c->name] != 1 || demands[c->name] != 1) continue;
    const auto hash = c->name.find('#');
    const std::string name = c->name.substr(0, hash);
    const Adornment a = c->name.substr(hash + 1);
    if (!rewriter.sole_demand_is_query(name, a) || !rewriter.factorable(name, a)) continue;
    rewriter.add_answers(name, a);
    std::vector<ast::Term> free_args;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (a[i] == 'f') free_args.push_back(c->args[i]);
    }
    c->name = Rewriter::answer_name(name, a);
    c->args = std::move(free_args);
  }
  *where_out = std::move(rewritten);
  *rules_out = rules;
  for (auto& r : rewriter.take()) rules_out->push_back(std::move(r));
  return Status::OK();
}

}  // namespace datalog::eval
