#include "engine/eval/stream_shape.h"

#include <algorithm>

#include "engine/eval/temporal_metadata.h"

namespace datalog::eval {

namespace {

using ast::named_variable;

bool is_constant(const ast::Term& t) {
  return std::holds_alternative<Value>(t) || std::holds_alternative<ast::Slot>(t);
}

// Whether a pattern already in order binds name (in its entity or its value).
bool bound_by(const std::vector<const ast::Pattern*>& order, const std::string& name) {
  return std::any_of(order.begin(), order.end(), [&](const ast::Pattern* p) {
    const ast::Variable* e = named_variable(p->e);
    const ast::Variable* v = named_variable(p->v);
    return (e && e->name == name) || (v && v->name == name);
  });
}

// Whether p can be read next, after the patterns in order: its entity is bound (a constant for
// the root of a chain) and its value is new.
bool can_follow(const std::vector<const ast::Pattern*>& order, const ast::Pattern& p) {
  const ast::Variable* e = named_variable(p.e);
  const ast::Variable* v = named_variable(p.v);
  if (e && v && e->name == v->name) return false;
  if (v && bound_by(order, v->name)) return false;
  if (order.empty()) return is_constant(p.e);
  return e && bound_by(order, e->name);
}

}  // namespace

bool is_plain_expression(const ast::ExprClause& c) {
  if (c.out && c.out->is_wildcard()) return false;
  return c.expr.op != "get-else" && c.expr.op != "missing?" && c.expr.op != "ground";
}

bool matches_only_itself(const Value& v) {
  switch (v.kind()) {
    case ValueKind::String:
    case ValueKind::Integer:
    case ValueKind::Boolean:
    case ValueKind::Instant:
    case ValueKind::Bytes: return true;
    default: return false;
  }
}

bool stream_order(const ast::Query& query, std::vector<const ast::Pattern*>* order) {
  order->clear();
  std::size_t patterns = 0;
  for (const auto& clause : query.where) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (is_pseudo_pattern(*p) || !std::holds_alternative<Value>(p->a)) return false;
      ++patterns;
    } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node); !e || !is_plain_expression(*e)) {
      return false;
    }
  }
  if (patterns == 0) return false;
  if (patterns == 1) {
    for (const auto& clause : query.where) {
      if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) order->push_back(p);
    }
    return true;
  }
  // Each round takes the first pattern, as written, that can follow those taken.
  while (order->size() < patterns) {
    const ast::Pattern* next = nullptr;
    for (const auto& clause : query.where) {
      const auto* p = std::get_if<ast::Pattern>(&clause.node);
      if (p && std::find(order->begin(), order->end(), p) == order->end() && can_follow(*order, *p)) {
        next = p;
        break;
      }
    }
    if (!next) return false;
    order->push_back(next);
  }
  return true;
}

}  // namespace datalog::eval
