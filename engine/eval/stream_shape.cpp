#include "engine/eval/stream_shape.h"

#include <algorithm>

#include "engine/eval/temporal_metadata.h"

namespace datalog::eval {

namespace {

using ast::named_variable;

// What ordering needs of a pattern: the names of its entity and value variables (null for a
// constant or `_`), looked up once. Filled only as far as the body goes (no initializers: the
// array is on the stack of every query's start).
struct PatternTerms {
  const ast::Pattern* pattern;
  const std::string* e;
  const std::string* v;
  bool constant_e;
  bool constant_v;
  bool taken;
};

// Bodies longer than this are rare enough to be evaluated in full.
constexpr std::size_t kMaxChain = 16;

// The variables the patterns taken so far bind.
struct BoundNames {
  const std::string* names[2 * kMaxChain];
  std::size_t count = 0;

  bool has(const std::string* name) const {
    for (std::size_t i = 0; i < count; ++i) {
      if (*names[i] == *name) return true;
    }
    return false;
  }
  void add(const std::string* name) {
    if (name) names[count++] = name;
  }
};

// Whether p can be read next, after the patterns taken: its entity is bound and its value is
// new. A root has no patterns before it: `root` says which constant it must hold.
enum class Root { None, Entity, Value };
bool can_follow(const BoundNames& bound, Root root, const PatternTerms& p) {
  if (p.e && p.v && *p.e == *p.v) return false;
  if (p.v && bound.has(p.v)) return false;
  if (root == Root::Entity) return p.constant_e;
  if (root == Root::Value) return p.constant_v && p.e;
  return p.e && bound.has(p.e);
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
  PatternTerms terms[kMaxChain];
  std::size_t count = 0;
  for (const auto& clause : query.where) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (count == kMaxChain || is_pseudo_pattern(*p) || !std::holds_alternative<Value>(p->a)) return false;
      const ast::Variable* e = named_variable(p->e);
      const ast::Variable* v = named_variable(p->v);
      const auto constant = [](const ast::Term& t) {
        return std::holds_alternative<Value>(t) || std::holds_alternative<ast::Slot>(t);
      };
      terms[count++] = PatternTerms{p, e ? &e->name : nullptr, v ? &v->name : nullptr, constant(p->e),
                                    constant(p->v), false};
    } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node); !e || !is_plain_expression(*e)) {
      return false;
    }
  }
  if (count == 0) return false;
  if (count == 1) {  // its own root, whatever its entity
    if (terms[0].e && terms[0].v && *terms[0].e == *terms[0].v) return false;
    order->push_back(terms[0].pattern);
    return true;
  }
  // Each round takes the first pattern, as written, that can follow those taken; the root is the
  // first with a constant entity, else the first with a constant value.
  BoundNames bound;
  while (order->size() < count) {
    PatternTerms* next = nullptr;
    for (const Root root : {Root::Entity, Root::Value}) {
      for (std::size_t i = 0; i < count && !next; ++i) {
        if (!terms[i].taken && can_follow(bound, order->empty() ? root : Root::None, terms[i])) next = &terms[i];
      }
      if (next || !order->empty()) break;
    }
    if (!next) return false;
    next->taken = true;
    bound.add(next->e);
    bound.add(next->v);
    order->push_back(next->pattern);
  }
  return true;
}

}  // namespace datalog::eval
