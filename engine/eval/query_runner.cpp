#include "engine/eval/query_runner.h"

#include <set>

#include <fmt/format.h>

#include "engine/ast_walk.h"
#include "engine/eval/closure.h"
#include "engine/eval/find_projector.h"
#include "engine/eval/host_calls.h"
#include "engine/eval/magic_sets.h"
#include "engine/eval/query_stream.h"
#include "engine/eval/rule_evaluator.h"
#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog::eval {

namespace {

// Aggregates, with plain variables or none, and no window or pull element.
bool aggregates_only(const ast::Query& q) {
  using Kind = ast::FindElement::Kind;
  bool any = false;
  for (const auto& f : q.find) {
    if (f.kind == Kind::Aggregate) any = true;
    else if (f.kind != Kind::Variable) return false;
  }
  return any;
}

Status missing_slot(const std::string& name) {
  return Status(StatusCode::InvalidArgument, fmt::format("missing bind value for slot '${}'", name));
}

Status fill_term(ast::Term& t, const std::map<std::string, Value>& slots) {
  if (const auto* s = std::get_if<ast::Slot>(&t)) {
    auto it = slots.find(s->name);
    if (it == slots.end()) return missing_slot(s->name);
    t = it->second;
  }
  return Status::OK();
}

// An entity position takes an entity: a ref, an ident keyword or uuid, or an integer id
// (Minigraf's BindValue::Entity, with this dialect's wider entity forms).
Status fill_entity(ast::Term& t, const std::map<std::string, Value>& slots) {
  const auto* s = std::get_if<ast::Slot>(&t);
  if (!s) return Status::OK();
  auto it = slots.find(s->name);
  if (it == slots.end()) return missing_slot(s->name);
  switch (it->second.kind()) {
    case ValueKind::Ref:
    case ValueKind::Keyword:
    case ValueKind::Uuid:
    case ValueKind::Integer: break;
    case ValueKind::String:  // SQL passes a uuid as its text
      if (auto uuid = parse_uuid(it->second.as_string())) {
        t = Value::uuid(*uuid);
        return Status::OK();
      }
      [[fallthrough]];
    default:
      return Status(StatusCode::InvalidArgument,
                    fmt::format("slot '${}' in entity position requires Entity (an ident such as :alice, "
                                "a uuid or an integer id), got {}",
                                s->name, it->second.to_edn()));
  }
  t = it->second;
  return Status::OK();
}

Status fill_expr(ast::Expr& e, const std::map<std::string, Value>& slots) {
  for (auto& arg : e.args) {
    if (const auto* s = std::get_if<ast::Slot>(&arg)) {
      auto it = slots.find(s->name);
      if (it == slots.end()) return missing_slot(s->name);
      arg = it->second;
    } else if (auto* sub = std::get_if<std::shared_ptr<ast::Expr>>(&arg); sub && *sub) {
      auto copy = std::make_shared<ast::Expr>(**sub);
      DATALOG_RETURN_IF_ERROR(fill_expr(*copy, slots));
      *sub = std::move(copy);
    }
  }
  return Status::OK();
}

Status fill_clauses(std::vector<ast::Clause>& clauses, const std::map<std::string, Value>& slots) {
  return ast::walk_clauses(clauses, [&](ast::Clause& clause) -> Status {
    if (auto* p = std::get_if<ast::Pattern>(&clause.node)) return fill_pattern_slots(*p, slots);
    if (auto* e = std::get_if<ast::ExprClause>(&clause.node)) return fill_expr(e->expr, slots);
    if (auto* call = std::get_if<ast::RuleCall>(&clause.node)) {
      for (auto& a : call->args) DATALOG_RETURN_IF_ERROR(fill_term(a, slots));
    }
    return Status::OK();
  });
}

Status time_view(GraphReader& graph, const ast::Query& q, const std::map<std::string, Value>& slots,
                 std::int64_t now, TimeView* view) {
  view->valid_at = now;
  if (q.as_of) {
    switch (q.as_of->kind) {
      case ast::AsOf::Kind::Counter:
        if (q.as_of->value < 0) {
          return Status(StatusCode::InvalidArgument, ":as-of counter must be non-negative");
        }
        view->as_of = static_cast<std::uint64_t>(q.as_of->value);
        break;
      case ast::AsOf::Kind::Time:
        DATALOG_RETURN_IF_ERROR(graph.tx_as_of_time(q.as_of->value, &view->as_of));
        break;
      case ast::AsOf::Kind::Slot: {
        auto it = slots.find(q.as_of->slot);
        if (it == slots.end()) return missing_slot(q.as_of->slot);
        const Value& v = it->second;
        if (v.is(ValueKind::Integer)) {
          if (v.as_integer() < 0) return Status(StatusCode::InvalidArgument, ":as-of counter must be non-negative");
          view->as_of = static_cast<std::uint64_t>(v.as_integer());
        } else if (v.is(ValueKind::Instant) || v.is(ValueKind::String)) {
          std::int64_t ms = 0;
          if (v.is(ValueKind::Instant)) {
            ms = v.as_instant();
          } else {
            TimeParse t = parse_instant(v.as_string());
            if (!t.ms) return Status(StatusCode::InvalidArgument, t.error);
            ms = *t.ms;
          }
          DATALOG_RETURN_IF_ERROR(graph.tx_as_of_time(ms, &view->as_of));
        } else {
          return Status(StatusCode::InvalidArgument,
                        fmt::format("slot '${}' in :as-of requires a transaction counter or a time, got {}",
                                    q.as_of->slot, kind_name(v.kind())));
        }
        break;
      }
    }
  }
  if (q.valid_at) {
    switch (q.valid_at->kind) {
      case ast::ValidAt::Kind::Time: view->valid_at = q.valid_at->ms; break;
      case ast::ValidAt::Kind::AnyValidTime: view->any_valid_time = true; break;
      case ast::ValidAt::Kind::Slot: {
        auto it = slots.find(q.valid_at->slot);
        if (it == slots.end()) return missing_slot(q.valid_at->slot);
        const Value& v = it->second;
        if (v.is(ValueKind::Instant)) {
          view->valid_at = v.as_instant();
        } else if (v.is(ValueKind::Integer)) {
          view->valid_at = v.as_integer();
        } else if ((v.is(ValueKind::Keyword) && v.as_keyword() == ":any-valid-time") ||
                   (v.is(ValueKind::String) && v.as_string() == "any")) {
          view->any_valid_time = true;
        } else if (v.is(ValueKind::String)) {
          TimeParse t = parse_instant(v.as_string());
          if (!t.ms) return Status(StatusCode::InvalidArgument, t.error);
          view->valid_at = *t.ms;
        } else {
          return Status(StatusCode::InvalidArgument,
                        fmt::format("slot '${}' in :valid-at requires a time or :any-valid-time, got {}",
                                    q.valid_at->slot, kind_name(v.kind())));
        }
        break;
      }
    }
  }
  return Status::OK();
}

void substitute_term(ast::Term& t, const std::map<std::string, Value>& known) {
  if (const auto* v = std::get_if<ast::Variable>(&t)) {
    if (auto it = known.find(v->name); it != known.end()) t = it->second;
  }
}

void substitute_expr(ast::Expr& e, const std::map<std::string, Value>& known) {
  for (auto& arg : e.args) {
    if (const auto* v = std::get_if<ast::Variable>(&arg)) {
      if (auto it = known.find(v->name); it != known.end()) arg = it->second;
    } else if (auto* sub = std::get_if<std::shared_ptr<ast::Expr>>(&arg); sub && *sub) {
      auto copy = std::make_shared<ast::Expr>(**sub);
      substitute_expr(*copy, known);
      *sub = std::move(copy);
    }
  }
}

// Begins memo for this call, or gives null when this call's choices may not be kept. The
// signature holds what the planner reads besides the rows (step_memo.h): the variables the body
// starts with (:in bindings, values pushed down from SQL), each slot value's kind, and whether an
// ident among them names an entity here.
Status begin_step_memo(EvalContext& ctx, const ast::Query& query,
                       const std::vector<ast::Rule>& rules, const QueryInputs& inputs,
                       const Relation& start, const RunOptions& options, StepMemo** out,
                       std::uint64_t* call) {
  *out = nullptr;
  StepMemo* memo = options.step_memo;
  if (!memo || options.trace || !rules.empty()) return Status::OK();
  if (ast::expression_clause_holds_slot(query.where)) return Status::OK();
  std::string signature;
  for (const std::string& var : start.vars) {
    signature += var;
    signature += '\0';  // no variable name holds one
  }
  signature += '\0';
  for (const auto& [name, value] : inputs.slots) {
    Value ident = value;
    if (value.is(ValueKind::String)) {  // a uuid's text in an entity position names an entity
      if (auto uuid = parse_uuid(value.as_string())) ident = Value::uuid(*uuid);
    }
    signature += static_cast<char>(value.kind());
    if (ident.is(ValueKind::Keyword) || ident.is(ValueKind::Uuid)) {
      std::optional<EntityId> id;
      DATALOG_RETURN_IF_ERROR(ctx.as_entity(ident, &id));
      signature += id ? 'e' : '-';
    }
  }
  if (memo->begin(ctx.graph().estimate_source(), std::move(signature), call)) *out = memo;
  return Status::OK();
}

}  // namespace

void substitute_variables(std::vector<ast::Clause>& clauses, const std::map<std::string, Value>& known) {
  ast::walk_clauses(clauses, [&](ast::Clause& clause) {
    ast::for_each_term(clause, [&](ast::Term& t) { substitute_term(t, known); });
    // An expression's output variable stays: it is checked as bound.
    if (auto* e = std::get_if<ast::ExprClause>(&clause.node)) substitute_expr(e->expr, known);
  });
}

Status query_time_view(GraphReader& graph, const ast::Query& query,
                       const std::map<std::string, Value>& slots, std::int64_t now_ms, TimeView* view) {
  return time_view(graph, query, slots, now_ms, view);
}

Status fill_pattern_slots(ast::Pattern& pattern, const std::map<std::string, Value>& slots) {
  DATALOG_RETURN_IF_ERROR(fill_entity(pattern.e, slots));
  DATALOG_RETURN_IF_ERROR(fill_term(pattern.a, slots));
  return fill_term(pattern.v, slots);
}

Status substitute_slots(const ast::Query& query, const std::map<std::string, Value>& slots,
                        ast::Query* out) {
  *out = query;
  return fill_clauses(out->where, slots);
}

Relation join_inputs(const std::vector<Relation>& inputs) {
  Relation acc = Relation::unit();
  for (const Relation& in : inputs) {
    std::vector<std::pair<int, int>> shared;  // (acc column, in column)
    std::vector<int> added;
    for (std::size_t c = 0; c < in.vars.size(); ++c) {
      const int a = acc.column(in.vars[c]);
      if (a >= 0) shared.emplace_back(a, static_cast<int>(c));
      else added.push_back(static_cast<int>(c));
    }
    Relation next;
    next.vars = acc.vars;
    for (int c : added) next.vars.push_back(in.vars[static_cast<std::size_t>(c)]);
    Row row;
    for (RowView left : acc.rows) {
      for (RowView right : in.rows) {
        bool match = true;
        for (auto [a, c] : shared) {
          if (!(left[static_cast<std::size_t>(a)] == right[static_cast<std::size_t>(c)])) match = false;
        }
        if (!match) continue;
        row.assign(left.begin(), left.end());
        for (int c : added) row.push_back(right[static_cast<std::size_t>(c)]);
        next.rows.push_back(std::move(row));
      }
    }
    acc = std::move(next);
  }
  return acc;
}

Status run_query(GraphReader& graph, const ast::Query& query, const std::vector<ast::Rule>& rules,
                 const QueryInputs& inputs, const RunOptions& options, QueryResult* result) {
  result->columns.clear();
  for (const auto& f : query.find) result->columns.push_back(f.header);
  result->rows.clear();
  result->trace.steps.clear();
  if (!rules.empty() && options.external) {
    DATALOG_RETURN_IF_ERROR(check_rule_host_calls(rules, query.where, *options.external));
  }

  // Aggregates over one scan fold the scan's bindings into groups as they come.
  if (!options.trace && aggregates_only(query)) {
    std::unique_ptr<QueryStream> stream;
    DATALOG_RETURN_IF_ERROR(QueryStream::open_bindings(graph, query, inputs, options, &stream));
    if (stream) {
      DATALOG_RETURN_IF_ERROR(project_aggregates(stream->context(), stream->query(), *stream, &result->rows));
      return stream->context().check_memory();  // check_interrupt looks only now and then
    }
  }

  TimeView view;
  DATALOG_RETURN_IF_ERROR(time_view(graph, query, inputs.slots, options.now_ms, &view));
  Limits limits = options.limits;
  if (query.max_results) limits.max_results = *query.max_results;
  if (query.max_derived_facts) limits.max_derived_facts = *query.max_derived_facts;
  EvalContext ctx(graph, view, limits);
  ctx.set_interrupt(options.interrupted);
  ctx.set_external_functions(options.external);

  ast::Query bound;
  DATALOG_RETURN_IF_ERROR(substitute_slots(query, inputs.slots, &bound));
  Trace* trace = options.trace ? &result->trace : nullptr;
  // Rules called with constants are evaluated on demand (magic sets). Inputs with one value
  // each (scalar :in bindings, pushed-down columns) act as constants there.
  Relation start = join_inputs(inputs.bindings);
  std::vector<ast::Rule> demand_rules;
  bool rewritten = false;
  std::map<std::string, TupleSet> closures;  // calls answered by a walk (closure.h)
  if (!rules.empty()) {
    if (start.rows.size() == 1) {
      std::map<std::string, Value> known;
      for (std::size_t i = 0; i < start.vars.size(); ++i) known[start.vars[i]] = start.rows[0][i];
      substitute_variables(bound.where, known);
    }
    DATALOG_RETURN_IF_ERROR(compute_closures(ctx, rules, bound.where, &closures, trace));
    std::vector<ast::Clause> where;
    DATALOG_RETURN_IF_ERROR(rewrite_for_demand(bound.where, rules, &where, &demand_rules, &rewritten));
    if (rewritten) bound.where = std::move(where);
  }
  RuleEvaluator derived(ctx, rewritten ? demand_rules : rules);
  for (const auto& [name, set] : closures) derived.provide(name, &set);
  std::set<std::string> needed;
  collect_calls(bound.where, needed);
  for (const auto& [name, set] : closures) needed.erase(name);
  if (!needed.empty()) DATALOG_RETURN_IF_ERROR(derived.derive(needed, trace));
  const DerivedLookup& lookup = derived.lookup();

  Relation bindings;
  BodyEvaluator body(ctx, lookup, trace);
  StepMemo* memo = nullptr;
  std::uint64_t call = 0;
  DATALOG_RETURN_IF_ERROR(begin_step_memo(ctx, query, rules, inputs, start, options, &memo, &call));
  body.use_memo(memo, call);
  DATALOG_RETURN_IF_ERROR(body.evaluate(bound.where, std::move(start), &bindings));
  DATALOG_RETURN_IF_ERROR(project_find(ctx, bound, bindings, &result->rows));
  return ctx.check_memory();  // check_interrupt looks only now and then
}

}  // namespace datalog::eval
