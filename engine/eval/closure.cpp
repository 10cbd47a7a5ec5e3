#include "engine/eval/closure.h"

#include <functional>
#include <optional>
#include <string_view>
#include <span>

#include <fmt/format.h>

#include "engine/eval/distinct_rows.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/value_hash.h"

namespace datalog::eval {

namespace {

constexpr std::string_view kClosurePrefix = "closure#";

const ast::Variable* var_of(const ast::Term& t) {
  const auto* v = std::get_if<ast::Variable>(&t);
  return v && !v->is_wildcard() ? v : nullptr;
}

bool is_var(const ast::Term& t, const ast::Variable* v) {
  const ast::Variable* mine = var_of(t);
  return mine && v && mine->name == v->name;
}

// The two distinct variables of a binary rule head.
bool head_vars(const ast::Rule& r, const ast::Variable** x, const ast::Variable** y) {
  if (r.head.size() != 2) return false;
  *x = var_of(r.head[0]);
  *y = var_of(r.head[1]);
  return *x && *y && (*x)->name != (*y)->name;
}

// The attribute whose closure the rules named name define, when they have exactly the shape
// closure.h describes.
std::optional<Value> closure_attribute(const std::vector<ast::Rule>& rules, const std::string& name) {
  const ast::Rule* base = nullptr;
  const ast::Rule* step = nullptr;
  int count = 0;
  for (const auto& r : rules) {
    if (r.name != name) continue;
    ++count;
    if (r.body.size() == 1) base = &r;
    if (r.body.size() == 2) step = &r;
  }
  if (count != 2 || !base || !step) return std::nullopt;

  const ast::Variable *x = nullptr, *y = nullptr;
  if (!head_vars(*base, &x, &y)) return std::nullopt;
  const auto* edge = std::get_if<ast::Pattern>(&base->body[0].node);
  if (!edge || is_pseudo_pattern(*edge) || !is_var(edge->e, x) || !is_var(edge->v, y)) return std::nullopt;
  const auto* attribute = std::get_if<Value>(&edge->a);
  if (!attribute || !attribute->is(ValueKind::Keyword)) return std::nullopt;

  const ast::Variable *from = nullptr, *to = nullptr;
  if (!head_vars(*step, &from, &to)) return std::nullopt;
  const ast::Pattern* hop = nullptr;
  const ast::RuleCall* call = nullptr;
  for (const auto& clause : step->body) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) hop = p;
    if (const auto* c = std::get_if<ast::RuleCall>(&clause.node)) call = c;
  }
  if (!hop || !call || call->name != name || call->args.size() != 2) return std::nullopt;
  if (const auto* a = std::get_if<Value>(&hop->a); !a || !(*a == *attribute)) return std::nullopt;
  // The middle node: a third variable, joining the hop and the recursive call.
  const ast::Variable* middle = nullptr;
  if (is_var(hop->e, from) && is_var(call->args[1], to)) {  // right-linear: hop, then (R mid to)
    middle = var_of(hop->v);
    if (!middle || !is_var(call->args[0], middle)) return std::nullopt;
  } else if (is_var(call->args[0], from) && is_var(hop->v, to)) {  // left-linear: (R from mid), hop
    middle = var_of(call->args[1]);
    if (!middle || !is_var(hop->e, middle)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  if (middle->name == from->name || middle->name == to->name) return std::nullopt;
  return *attribute;
}

// Every node reachable from start over attribute edges, as (start, node) tuples of join keys.
// Values are deduplicated as stored; two that name one entity (a ref and its ident) may both be
// walked, and meet again as one tuple in out.
Status walk(EvalContext& ctx, EntityId attribute, const Value& start, TupleSet* out,
            std::int64_t* levels) {
  const Limits& limits = ctx.limits();
  const Value start_key = ctx.join_key(start);
  DistinctRows reached;  // flat: no heap block per value, as a node set would make
  std::vector<Value> keys;                   // join keys of the reached values
  std::vector<EntityId> frontier, next;      // reached entities whose edges are still unread
  std::optional<EntityId> start_entity;
  DATALOG_RETURN_IF_ERROR(ctx.as_entity_uncached(start_key, &start_entity));
  if (start_entity) frontier.push_back(*start_entity);
  DatomFilter edges;
  edges.a = attribute;
  Status inner;
  std::int64_t produced = 0;
  const auto each = [&](const Datom& d) {
    ++produced;
    Value copy = d.v;
    if (!reached.insert_moved(std::span<Value>(&copy, 1))) return true;
    std::optional<EntityId> id;
    inner = ctx.as_entity_uncached(d.v, &id);  // each value once: no use caching it
    if (!inner.ok()) return false;
    keys.push_back(EvalContext::join_key(d.v, id));
    if (id) next.push_back(*id);
    return true;
  };
  // Made once, around a reference: a std::function of the lambda itself is a heap block per
  // scan, and the walk scans once per node.
  const std::function<bool(const Datom&)> visit = std::ref(each);
  // A level is counted for every set of values reached, entities or not, as a round of rule
  // evaluation would count it: the limit on iterations means the same with or without the walk.
  std::size_t level_values = 1;  // the start
  for (*levels = 0; level_values > 0; ++*levels) {
    if (*levels >= limits.max_iterations) {
      return max_iterations_exceeded(limits);
    }
    DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
    produced = 0;
    const std::size_t keys_before = keys.size();
    next.clear();
    for (const EntityId e : frontier) {
      edges.e = e;
      DATALOG_RETURN_IF_ERROR(ctx.graph().scan(edges, ctx.view(), visit));
      DATALOG_RETURN_IF_ERROR(inner);
    }
    if (produced > limits.max_derived_facts) {
      return max_derived_facts_exceeded(limits);
    }
    if (static_cast<std::int64_t>(keys.size()) > limits.max_results) {
      return max_results_exceeded(limits);
    }
    level_values = keys.size() - keys_before;
    frontier.swap(next);
  }
  out->reserve(keys.size());
  for (Value& node : keys) out->insert(Row{start_key, std::move(node)});
  return Status::OK();
}

}  // namespace

Status compute_closures(EvalContext& ctx, const std::vector<ast::Rule>& rules,
                        std::vector<ast::Clause>& where, std::map<std::string, TupleSet>* sets,
                        Trace* trace) {
  for (auto& clause : where) {
    auto* call = std::get_if<ast::RuleCall>(&clause.node);
    if (!call || call->args.size() != 2) continue;
    const auto* start = std::get_if<Value>(&call->args[0]);
    if (!start) continue;
    const std::optional<Value> attribute = closure_attribute(rules, call->name);
    if (!attribute) continue;
    std::optional<EntityId> a;
    DATALOG_RETURN_IF_ERROR(ctx.as_attribute(*attribute, &a));
    TupleSet set;
    std::int64_t levels = 0;
    if (a) DATALOG_RETURN_IF_ERROR(walk(ctx, *a, *start, &set, &levels));
    const std::string name = fmt::format("{}{}#{}", kClosurePrefix, call->name, sets->size());
    if (trace) {
      trace->steps.push_back(TraceStep{
          fmt::format("({} {} ...): closure over {}", call->name, start->to_edn(), attribute->to_edn()),
          fmt::format("breadth-first index lookups, {} levels", levels), 0, set.size(), 0});
    }
    (*sets)[name] = std::move(set);
    call->name = name;
  }
  return Status::OK();
}

std::string rule_name_as_written(const std::string& call_name) {
  if (call_name.rfind(kClosurePrefix, 0) != 0) return call_name;
  const std::string rest = call_name.substr(kClosurePrefix.size());
  return rest.substr(0, rest.rfind('#'));
}

}  // namespace datalog::eval
