#include "engine/eval/query_stream.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/ast_walk.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/eval/value_ranges.h"

namespace datalog::eval {

namespace {

const ast::Variable* variable_of(const ast::Term& t) { return std::get_if<ast::Variable>(&t); }

// A constant value that matches only itself in a scan (an ident keyword or uuid also matches the
// entity it names, a ref its ident, and a float its neighbours within epsilon).
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

// An expression that reads only its arguments and gives at most one value: a filter, or a
// binding of a variable (a wildcard output would only test that the call succeeds).
bool is_plain_expression(const ast::ExprClause& c) {
  if (c.out && c.out->is_wildcard()) return false;
  return c.expr.op != "get-else" && c.expr.op != "missing?" && c.expr.op != "ground";
}

// The shape start() accepts, checked on the query as written (a slot stands only where a
// constant may, never in the attribute): one real pattern with a constant attribute, and plain
// expressions. A query of any other shape goes to run_query before the slots are copied in.
bool single_scan_shape(const ast::Query& query) {
  int patterns = 0;
  for (const auto& clause : query.where) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (++patterns > 1 || is_pseudo_pattern(*p) || !std::holds_alternative<Value>(p->a)) return false;
    } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node); !e || !is_plain_expression(*e)) {
      return false;
    }
  }
  return patterns == 1;
}

// The query's one pattern, when no expression holds a slot: then only that pattern needs its
// slots filled, and the rest of the query is read as written (no copy per call).
const ast::Pattern* only_pattern_holds_slots(const ast::Query& query) {
  const ast::Pattern* pattern = nullptr;
  for (const auto& clause : query.where) {
    const auto* e = std::get_if<ast::ExprClause>(&clause.node);
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) pattern = p;
    else if (e && ast::expr_holds_slot(e->expr)) return nullptr;
  }
  return pattern;
}

}  // namespace

Status QueryStream::open(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                         const RunOptions& options, std::unique_ptr<QueryStream>* out,
                         std::unique_ptr<QueryStream> reuse) {
  return open_shape(graph, query, inputs, options, Shape::Rows, out, std::move(reuse));
}

Status QueryStream::open_bindings(GraphReader& graph, const ast::Query& query,
                                  const QueryInputs& inputs, const RunOptions& options,
                                  std::unique_ptr<QueryStream>* out) {
  return open_shape(graph, query, inputs, options, Shape::Bindings, out, nullptr);
}

Status QueryStream::open_shape(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                               const RunOptions& options, Shape shape,
                               std::unique_ptr<QueryStream>* out, std::unique_ptr<QueryStream> reuse) {
  using Kind = ast::FindElement::Kind;
  out->reset();
  if (!inputs.bindings.empty() || !query.in.empty()) return Status::OK();
  bool aggregates = false;
  for (const auto& f : query.find) {
    if (f.var.is_wildcard()) return Status::OK();
    if (f.kind == Kind::Aggregate && shape == Shape::Bindings) {
      aggregates = true;
    } else if (f.kind != Kind::Variable) {
      return Status::OK();
    }
  }
  if (shape == Shape::Bindings && !aggregates) return Status::OK();
  if (!single_scan_shape(query)) return Status::OK();
  TimeView view;
  DATALOG_RETURN_IF_ERROR(query_time_view(graph, query, inputs.slots, options.now_ms, &view));
  Limits limits = options.limits;
  if (query.max_results) limits.max_results = *query.max_results;
  std::unique_ptr<QueryStream> stream = std::move(reuse);
  if (!stream) stream.reset(new QueryStream());
  stream->begin(graph, view, limits);
  stream->ctx_->set_interrupt(options.interrupted);
  stream->ctx_->set_external_functions(options.external);
  bool streams = false;
  if (const ast::Pattern* pattern = only_pattern_holds_slots(query)) {
    stream->pattern_ = *pattern;
    DATALOG_RETURN_IF_ERROR(fill_pattern_slots(stream->pattern_, inputs.slots));
    DATALOG_RETURN_IF_ERROR(stream->start(query, &stream->pattern_, shape, &streams));
  } else {
    DATALOG_RETURN_IF_ERROR(substitute_slots(query, inputs.slots, &stream->query_));
    DATALOG_RETURN_IF_ERROR(stream->start(stream->query_, nullptr, shape, &streams));
  }
  if (streams) *out = std::move(stream);
  return Status::OK();
}

void QueryStream::begin(GraphReader& graph, const TimeView& view, const Limits& limits) {
  end();
  ctx_.emplace(graph, view, limits);
  source_ = &query_;
  steps_.clear();
  scope_.vars.clear();
  current_.clear();
  produced_values_.clear();
  entity_column_ = value_column_ = -1;
  find_columns_.clear();
  moves_out_.clear();
  empty_ = false;
  produced_ = 0;
}

void QueryStream::end() {
  if (cursor_ && cursor_->keepable()) spare_cursor_ = std::move(cursor_);
  cursor_.reset();
  ctx_.reset();
}

// Checks the query's shape and opens the scan; *streams is false for any other shape.
Status QueryStream::start(const ast::Query& source, const ast::Pattern* filled, Shape shape, bool* streams) {
  *streams = false;
  source_ = &source;
  const ast::Pattern* pattern = nullptr;
  std::vector<const ast::ExprClause*> expressions;
  for (const auto& clause : source.where) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (pattern || is_pseudo_pattern(*p)) return Status::OK();
      pattern = filled ? filled : p;
    } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node); e && is_plain_expression(*e)) {
      expressions.push_back(e);
    } else {
      return Status::OK();
    }
  }
  if (!pattern) return Status::OK();
  const auto* attribute = std::get_if<Value>(&pattern->a);
  if (!attribute) return Status::OK();
  const ast::Variable* e_var = variable_of(pattern->e);
  const ast::Variable* v_var = variable_of(pattern->v);
  if (e_var && v_var && !e_var->is_wildcard() && e_var->name == v_var->name) return Status::OK();
  const auto* v_constant = std::get_if<Value>(&pattern->v);
  if (v_constant && !matches_only_itself(*v_constant)) return Status::OK();

  DatomFilter filter;
  // One look-up each, so past the context's cache of idents (filling it would cost more).
  std::optional<EntityId> a;
  if (attribute->is(ValueKind::Keyword)) DATALOG_RETURN_IF_ERROR(ctx_->as_entity_uncached(*attribute, &a));
  filter.a = a;
  if (const auto* e_constant = std::get_if<Value>(&pattern->e)) {
    DATALOG_RETURN_IF_ERROR(ctx_->as_entity_uncached(*e_constant, &filter.e));
    if (!filter.e) empty_ = true;
  }
  if (!a) empty_ = true;
  if (v_constant) filter.v = *v_constant;
  if (v_var && !v_var->is_wildcard()) {
    // The comparisons among the filters narrow the scan to the values that can pass them; on
    // integer values, those with an integer constant then hold already (value_ranges.h).
    filter.v_ranges = value_ranges(v_var->name, comparison_filters(source.where));
  }
  if (e_var && !e_var->is_wildcard()) {
    entity_column_ = 0;
    scope_.vars.push_back(e_var->name);
  }
  if (v_var && !v_var->is_wildcard()) {
    value_column_ = static_cast<int>(scope_.vars.size());
    scope_.vars.push_back(v_var->name);
  }
  if (!place_expressions(std::move(expressions), v_var && !v_var->is_wildcard() ? &v_var->name : nullptr,
                         !filter.v_ranges.empty())) {
    return Status::OK();
  }
  for (const auto& f : source.find) {
    const int column = scope_.column(f.var.name);
    if (column < 0) return Status::OK();  // the analyzer rejects this; run_query says how
    if (shape == Shape::Rows) find_columns_.push_back(column);
  }
  for (std::size_t i = 0; i < find_columns_.size(); ++i) {
    moves_out_.push_back(std::find(find_columns_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                   find_columns_.end(), find_columns_[i]) == find_columns_.end());
  }
  // A value no find element or filter reads need not be decoded (point_attribute: [?e :a _]);
  // a scan that compares values itself decodes them regardless.
  filter.values_unused = steps_.empty() &&
                         std::none_of(source.find.begin(), source.find.end(), [&](const ast::FindElement& f) {
                           return v_var && f.var.name == v_var->name;
                         });
  // Aggregates grouped by the value get the datoms in value order, so equal keys come together.
  filter.value_order = shape == Shape::Bindings && v_var &&
                       std::any_of(source.find.begin(), source.find.end(), [&](const ast::FindElement& f) {
                         return f.kind == ast::FindElement::Kind::Variable && f.var.name == v_var->name;
                       });
  current_.assign(scope_.vars.size(), Value::nil());
  *streams = true;
  if (empty_) return Status::OK();
  cursor_ = std::move(spare_cursor_);
  return ctx_->graph().open_cursor(filter, ctx_->view(), &cursor_);
}

// Orders the expressions so each runs once its inputs are bound (the pattern's variables, then
// what earlier bindings bind); false when one waits for a variable nothing here binds, or
// rebinds a bound one (a join, left to run_query).
bool QueryStream::place_expressions(std::vector<const ast::ExprClause*> pending,
                                    const std::string* value_var, bool has_ranges) {
  std::vector<std::string> inputs;
  while (!pending.empty()) {
    auto ready = std::find_if(pending.begin(), pending.end(), [&](const ast::ExprClause* c) {
      inputs.clear();
      expr_variables(c->expr, inputs);
      return std::all_of(inputs.begin(), inputs.end(), [&](const std::string& v) { return scope_.binds(v); });
    });
    if (ready == pending.end()) return false;
    const ast::ExprClause* c = *ready;
    pending.erase(ready);
    Step step{c};
    if (c->out) {
      if (scope_.binds(c->out->name)) return false;
      step.out_column = static_cast<int>(scope_.vars.size());
      scope_.vars.push_back(c->out->name);
    } else {
      step.holds_on_integers = has_ranges && value_var && exact_on_integers(*c, *value_var);
    }
    steps_.push_back(step);
  }
  return true;
}

Status QueryStream::run_expressions(bool* keep) {
  *keep = true;
  if (steps_.empty()) return Status::OK();
  const bool integer = value_column_ >= 0 &&
                       current_[static_cast<std::size_t>(value_column_)].is(ValueKind::Integer);
  for (const Step& step : steps_) {
    if (integer && step.holds_on_integers) continue;
    produced_values_.clear();
    DATALOG_RETURN_IF_ERROR(evaluate_clause_expression(*ctx_, *step.clause, scope_, current_, &produced_values_));
    if (produced_values_.empty()) {  // a filter that fails, or a binding whose call failed
      *keep = false;
      return Status::OK();
    }
    if (step.out_column >= 0) current_[static_cast<std::size_t>(step.out_column)] = std::move(produced_values_.front());
  }
  return Status::OK();
}

Status QueryStream::next_binding(RowView* row, bool* found) {
  *found = false;
  if (empty_) return Status::OK();
  while (!cursor_->at_end()) {
    DATALOG_RETURN_IF_ERROR(ctx_->check_interrupt());
    Datom& d = cursor_->take_datom();
    if (entity_column_ >= 0) current_[static_cast<std::size_t>(entity_column_)] = Value::ref(d.e);
    if (value_column_ >= 0) current_[static_cast<std::size_t>(value_column_)] = std::move(d.v);
    DATALOG_RETURN_IF_ERROR(cursor_->next());
    bool keep = true;
    if (!steps_.empty()) DATALOG_RETURN_IF_ERROR(run_expressions(&keep));
    if (keep) {
      *row = current_;
      *found = true;
      return Status::OK();
    }
  }
  return Status::OK();
}

Status QueryStream::next(Row* row, bool* done) {
  *done = true;
  RowView binding;
  bool found = false;
  DATALOG_RETURN_IF_ERROR(next_binding(&binding, &found));
  if (!found) return ctx_->check_memory();  // check_interrupt looks only now and then
  if (++produced_ > ctx_->limits().max_results) {
    return max_results_exceeded(ctx_->limits());
  }
  // The binding is overwritten by the next call, so each column moves out at its last use.
  row->resize(find_columns_.size());
  for (std::size_t i = 0; i < find_columns_.size(); ++i) {
    Value& cell = current_[static_cast<std::size_t>(find_columns_[i])];
    if (moves_out_[i]) (*row)[i] = std::move(cell);
    else (*row)[i] = cell;
  }
  *done = false;
  return Status::OK();
}

}  // namespace datalog::eval
