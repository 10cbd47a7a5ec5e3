// Variable safety of queries and rules, independent of clause order (engine/analyzer.h).
//
// The one hard idea: "bound" is a least fixpoint. A body's bound set starts from its context
// (:in or head variables) and grows by patterns, rule calls, expression outputs whose inputs are
// bound, and the variables every branch of an `or` binds — where a branch's bindings depend in
// turn on what is bound around it. Or-branch results are cached per (or clause, the part of the
// bound set the or mentions), since the branch only reads those variables; a work budget keeps a
// pathological nest of ors from running long.
#include "engine/analyzer.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "engine/ast_walk.h"
#include "engine/parse_error.h"

namespace datalog {

namespace {

using VarSet = std::set<std::string>;

// Bound-set computations allowed per check; real queries use a few dozen.
constexpr std::size_t kWorkBudget = 200'000;

const ast::Variable* variable_in(const ast::Term& t) {
  const auto* v = std::get_if<ast::Variable>(&t);
  return v != nullptr && !v->is_wildcard() ? v : nullptr;
}

// Every variable of an expression, wildcards included (they are never bound), in text order.
void expr_variables(const ast::Expr& e, std::vector<const ast::Variable*>* out) {
  for (const auto& arg : e.args) {
    if (const auto* v = std::get_if<ast::Variable>(&arg)) {
      out->push_back(v);
    } else if (const auto* nested = std::get_if<std::shared_ptr<ast::Expr>>(&arg)) {
      if (*nested) expr_variables(**nested, out);
    }
  }
}

// The variables a clause binds by itself (patterns, rule calls, an expression's output):
// what Minigraf requires a (not ...) body's variables to be bound by outside.
void direct_bindings(const ast::Clause& c, std::vector<const ast::Variable*>* out) {
  if (const auto* p = std::get_if<ast::Pattern>(&c.node)) {
    for (const ast::Term* t : {&p->e, &p->a, &p->v}) {
      if (const auto* v = variable_in(*t)) out->push_back(v);
    }
  } else if (const auto* call = std::get_if<ast::RuleCall>(&c.node)) {
    for (const auto& t : call->args) {
      if (const auto* v = variable_in(t)) out->push_back(v);
    }
  } else if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) {
    if (e->out && !e->out->is_wildcard()) out->push_back(&*e->out);
  }
}

// Every non-wildcard variable mentioned anywhere inside clauses.
void mentioned(const ast::Clause& clause, VarSet* out) {
  ast::walk_clause(clause, [&](const ast::Clause& c) {
    std::vector<const ast::Variable*> vars;
    direct_bindings(c, &vars);
    if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) expr_variables(e->expr, &vars);
    if (const auto* n = std::get_if<ast::Not>(&c.node)) {
      for (const auto& v : n->join_vars) vars.push_back(&v);
    } else if (const auto* o = std::get_if<ast::Or>(&c.node)) {
      for (const auto& v : o->join_vars) vars.push_back(&v);
    }
    for (const auto* v : vars) {
      if (!v->is_wildcard()) out->insert(v->name);
    }
  });
}

void mentioned(const std::vector<ast::Clause>& clauses, VarSet* out) {
  for (const auto& c : clauses) mentioned(c, out);
}

VarSet names_of(const std::vector<ast::Variable>& vars) {
  VarSet out;
  for (const auto& v : vars) {
    if (!v.is_wildcard()) out.insert(v.name);
  }
  return out;
}

class SafetyChecker {
 public:
  // Checks body under context; *bound receives what the body binds (context included).
  Status check_body(const std::vector<ast::Clause>& body, const VarSet& context, VarSet* bound) {
    DATALOG_RETURN_IF_ERROR(bound_by(body, context, nullptr, bound));
    for (const auto& c : body) DATALOG_RETURN_IF_ERROR(check_clause(body, context, c, *bound));
    return Status::OK();
  }

 private:
  Status check_clause(const std::vector<ast::Clause>& body, const VarSet& context,
                      const ast::Clause& c, const VarSet& bound) {
    if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) {
      std::vector<const ast::Variable*> vars;
      expr_variables(e->expr, &vars);
      for (const auto* v : vars) {
        if (bound.count(v->name) == 0) {
          return parse_error(v->pos, fmt::format("variable {} in expression clause is not bound "
                                                 "by any earlier clause",
                                                 v->name));
        }
      }
      return Status::OK();
    }
    if (const auto* n = std::get_if<ast::Not>(&c.node)) return check_not(*n, bound);
    if (const auto* o = std::get_if<ast::Or>(&c.node)) {
      return o->is_join ? check_or_join(*o, bound) : check_or(body, context, c, *o, bound);
    }
    return Status::OK();
  }

  Status check_not(const ast::Not& n, const VarSet& bound) {
    VarSet inner;
    if (!n.is_join) {
      for (const auto& c : n.body) {
        std::vector<const ast::Variable*> vars;
        direct_bindings(c, &vars);
        for (const auto* v : vars) {
          if (bound.count(v->name) == 0) {
            return parse_error(v->pos, fmt::format("variable {} in (not ...) is not bound by "
                                                   "any outer clause",
                                                   v->name));
          }
        }
      }
      return check_body(n.body, bound, &inner);
    }
    for (const auto& v : n.join_vars) {
      if (!v.is_wildcard() && bound.count(v.name) == 0) {
        return parse_error(v.pos, fmt::format("join variable {} in (not-join ...) is not bound "
                                              "by any outer clause",
                                              v.name));
      }
    }
    return check_body(n.body, names_of(n.join_vars), &inner);
  }

  Status check_or_join(const ast::Or& o, const VarSet& bound) {
    for (const auto& v : o.join_vars) {
      if (!v.is_wildcard() && bound.count(v.name) == 0) {
        return parse_error(v.pos, fmt::format("join variable {} in (or-join ...) is not bound by "
                                              "any earlier clause",
                                              v.name));
      }
    }
    const VarSet shared = names_of(o.join_vars);
    for (const auto& branch : o.branches) {
      VarSet inner;
      DATALOG_RETURN_IF_ERROR(check_body(branch, shared, &inner));
    }
    return Status::OK();
  }

  // "New" variables of a branch are those the rest of the body does not bind.
  Status check_or(const std::vector<ast::Clause>& body, const VarSet& context,
                  const ast::Clause& self, const ast::Or& o, const VarSet& bound) {
    VarSet outside;
    DATALOG_RETURN_IF_ERROR(bound_by(body, context, &self, &outside));
    std::optional<VarSet> first_new;
    for (const auto& branch : o.branches) {
      VarSet in_branch;
      DATALOG_RETURN_IF_ERROR(bound_by(branch, outside, nullptr, &in_branch));
      VarSet fresh;
      for (const auto& v : in_branch) {
        if (outside.count(v) == 0) fresh.insert(v);
      }
      if (!first_new) {
        first_new = std::move(fresh);
      } else if (fresh != *first_new) {
        return parse_error(o.pos,
                           "all branches of (or ...) must introduce the same set of new variables");
      }
    }
    for (const auto& branch : o.branches) {
      VarSet inner;
      DATALOG_RETURN_IF_ERROR(check_body(branch, bound, &inner));
    }
    return Status::OK();
  }

  Status spend() {
    if (work_ == 0) {
      return Status(StatusCode::InvalidArgument,
                    "query is too complex to check: too many nested (or ...) branches");
    }
    --work_;
    return Status::OK();
  }

  // The least fixpoint described at the top of the file; `skip` is left out (for the or rule).
  Status bound_by(const std::vector<ast::Clause>& body, const VarSet& context,
                  const ast::Clause* skip, VarSet* out) {
    DATALOG_RETURN_IF_ERROR(spend());
    *out = context;
    bool changed = true;
    while (changed) {
      changed = false;
      const auto add = [&](const std::string& name) {
        if (out->insert(name).second) changed = true;
      };
      for (const auto& c : body) {
        if (&c == skip) continue;
        if (std::holds_alternative<ast::Pattern>(c.node) ||
            std::holds_alternative<ast::RuleCall>(c.node)) {
          std::vector<const ast::Variable*> vars;
          direct_bindings(c, &vars);
          for (const auto* v : vars) add(v->name);
        } else if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) {
          if (!e->out || e->out->is_wildcard() || out->count(e->out->name) != 0) continue;
          std::vector<const ast::Variable*> inputs;
          expr_variables(e->expr, &inputs);
          bool ready = true;
          for (const auto* v : inputs) ready = ready && out->count(v->name) != 0;
          if (ready) add(e->out->name);
        } else if (const auto* o = std::get_if<ast::Or>(&c.node); o != nullptr && !o->is_join) {
          VarSet exported;
          DATALOG_RETURN_IF_ERROR(or_exports(*o, *out, &exported));
          for (const auto& v : exported) add(v);
        }
      }
    }
    return Status::OK();
  }

  // The variables (among those the or mentions) that every branch binds under `bound`.
  Status or_exports(const ast::Or& o, const VarSet& bound, VarSet* out) {
    OrMemo& memo = memo_[&o];
    if (!memo.has_vars) {
      for (const auto& branch : o.branches) mentioned(branch, &memo.vars);
      memo.has_vars = true;
    }
    VarSet key;
    for (const auto& v : memo.vars) {
      if (bound.count(v) != 0) key.insert(v);
    }
    if (const auto hit = memo.exports.find(key); hit != memo.exports.end()) {
      *out = hit->second;
      return Status::OK();
    }
    std::optional<VarSet> common;
    for (const auto& branch : o.branches) {
      VarSet in_branch;
      DATALOG_RETURN_IF_ERROR(bound_by(branch, key, nullptr, &in_branch));
      if (!common) {
        common = std::move(in_branch);
      } else {
        VarSet both;
        for (const auto& v : *common) {
          if (in_branch.count(v) != 0) both.insert(v);
        }
        common = std::move(both);
      }
    }
    *out = common.value_or(VarSet{});
    memo.exports.emplace(std::move(key), *out);
    return Status::OK();
  }

  struct OrMemo {
    bool has_vars = false;
    VarSet vars;                       // every variable the or mentions
    std::map<VarSet, VarSet> exports;  // bound ∩ vars -> what every branch binds
  };
  std::map<const ast::Or*, OrMemo> memo_;
  std::size_t work_ = kWorkBudget;
};

bool has_aggregate(const ast::Query& q) {
  for (const auto& f : q.find) {
    if (f.kind == ast::FindElement::Kind::Aggregate) return true;
  }
  return false;
}

Status require_bound(const VarSet& bound, const ast::Variable& v, std::string_view what) {
  if (bound.count(v.name) != 0) return Status::OK();
  return parse_error(v.pos, fmt::format("{} {} not bound in :where", what, v.name));
}

}  // namespace

Status check_query(const ast::Query& q) {
  if (q.where.empty() && q.in.empty() && !has_aggregate(q)) {
    return parse_error(q.pos,
                       "query has no :where clause, rules, or aggregates — nothing binds the "
                       "variables. Add a :where clause (e.g., [:find ?e ?a ?v :where [?e ?a ?v]]) "
                       "or use an aggregate.");
  }
  VarSet context;
  for (const auto& b : q.in) {
    for (const auto& v : b.vars) {
      if (!v.is_wildcard()) context.insert(v.name);
    }
  }
  SafetyChecker checker;
  VarSet bound;
  DATALOG_RETURN_IF_ERROR(checker.check_body(q.where, context, &bound));
  for (const auto& f : q.find) {
    switch (f.kind) {
      case ast::FindElement::Kind::Variable:
        if (!f.var.is_wildcard())
          DATALOG_RETURN_IF_ERROR(require_bound(bound, f.var, "Find variable"));
        break;
      case ast::FindElement::Kind::Aggregate:
        DATALOG_RETURN_IF_ERROR(require_bound(bound, f.var, "Aggregate variable"));
        break;
      case ast::FindElement::Kind::Pull:
        DATALOG_RETURN_IF_ERROR(require_bound(bound, f.var, "Pull variable"));
        break;
      case ast::FindElement::Kind::Window:
        if (f.has_var) DATALOG_RETURN_IF_ERROR(require_bound(bound, f.var, "Window variable"));
        if (f.over && f.over->partition_by) {
          DATALOG_RETURN_IF_ERROR(require_bound(bound, *f.over->partition_by, "Window variable"));
        }
        if (f.over)
          DATALOG_RETURN_IF_ERROR(require_bound(bound, f.over->order_by, "Window variable"));
        break;
    }
  }
  for (const auto& v : q.with) {
    DATALOG_RETURN_IF_ERROR(require_bound(bound, v, "':with' variable"));
  }
  if (!q.with.empty() && !has_aggregate(q)) {
    return parse_error(q.pos, "':with' clause requires at least one aggregate in :find");
  }
  return Status::OK();
}

Status check_rule(const ast::Rule& rule) {
  VarSet context;
  for (const auto& t : rule.head) {
    if (const auto* v = variable_in(t)) context.insert(v->name);
  }
  SafetyChecker checker;
  VarSet bound;
  return checker.check_body(rule.body, context, &bound);
}

Status check_command(const ast::Command& command) {
  if (const auto* q = std::get_if<ast::QueryCommand>(&command)) return check_query(q->query);
  if (const auto* r = std::get_if<ast::Rule>(&command)) return check_rule(*r);
  return Status::OK();
}

}  // namespace datalog
