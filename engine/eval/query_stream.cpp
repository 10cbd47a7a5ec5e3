#include "engine/eval/query_stream.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/ast_walk.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/stream_shape.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/eval/value_ranges.h"

namespace datalog::eval {

namespace {

// The most datoms a root found by its value may be expected to hold for its chain to stream.
constexpr double kMaxValueRootDatoms = 64;

}  // namespace

Status QueryStream::open(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                         const RunOptions& options, std::unique_ptr<QueryStream>* out,
                         std::unique_ptr<QueryStream>* spare) {
  return open_shape(graph, query, inputs, options, Shape::Rows, out, spare);
}

Status QueryStream::open_bindings(GraphReader& graph, const ast::Query& query,
                                  const QueryInputs& inputs, const RunOptions& options,
                                  std::unique_ptr<QueryStream>* out) {
  return open_shape(graph, query, inputs, options, Shape::Bindings, out, nullptr);
}

Status QueryStream::open_shape(GraphReader& graph, const ast::Query& query, const QueryInputs& inputs,
                               const RunOptions& options, Shape shape,
                               std::unique_ptr<QueryStream>* out, std::unique_ptr<QueryStream>* spare) {
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
  std::unique_ptr<QueryStream> stream;
  if (spare && *spare) stream = std::move(*spare);
  else stream.reset(new QueryStream());
  // A query that does not stream hands the storage back for the next call.
  const auto keep_spare = [&] {
    stream->end();
    if (spare) *spare = std::move(stream);
    return Status::OK();
  };
  if (!stream_order(query, &stream->order_)) return keep_spare();
  if (shape == Shape::Bindings && stream->order_.size() > 1) return keep_spare();
  TimeView view;
  DATALOG_RETURN_IF_ERROR(query_time_view(graph, query, inputs.slots, options.now_ms, &view));
  Limits limits = options.limits;
  if (query.max_results) limits.max_results = *query.max_results;
  stream->begin(graph, view, limits);
  stream->ctx_->set_interrupt(options.interrupted);
  stream->ctx_->set_external_functions(options.external);
  bool streams = false;
  if (!ast::expression_clause_holds_slot(query.where)) {
    // Only patterns hold slots: they are filled in copies, the rest is read as written.
    const auto holding = static_cast<std::size_t>(std::count_if(
        stream->order_.begin(), stream->order_.end(), [](const ast::Pattern* p) { return ast::pattern_holds_slot(*p); }));
    if (stream->filled_.size() < holding) stream->filled_.resize(holding);  // before any is pointed at
    std::size_t filled = 0;
    for (const ast::Pattern*& p : stream->order_) {
      if (!ast::pattern_holds_slot(*p)) continue;
      ast::Pattern& copy = stream->filled_[filled++];
      copy = *p;
      DATALOG_RETURN_IF_ERROR(fill_pattern_slots(copy, inputs.slots));
      p = &copy;
    }
    DATALOG_RETURN_IF_ERROR(stream->start(query, shape, &streams));
  } else {
    DATALOG_RETURN_IF_ERROR(substitute_slots(query, inputs.slots, &stream->query_));
    if (!stream_order(stream->query_, &stream->order_)) return keep_spare();
    DATALOG_RETURN_IF_ERROR(stream->start(stream->query_, shape, &streams));
  }
  if (!streams) return keep_spare();
  *out = std::move(stream);
  return Status::OK();
}

void QueryStream::begin(GraphReader& graph, const TimeView& view, const Limits& limits) {
  end();
  ctx_.emplace(graph, view, limits);
  source_ = &query_;
  depth_ = 0;
  steps_.clear();
  scope_.vars.clear();
  current_.clear();
  produced_values_.clear();
  find_columns_.clear();
  moves_out_.clear();
  empty_ = false;
  produced_ = 0;
}

void QueryStream::end() {
  for (Level& level : levels_) {
    if (level.cursor && !level.cursor->keepable()) level.cursor.reset();
    level.open = false;
  }
  ctx_.reset();
}

// Checks the query's shape and opens the root's scan; *streams is false for any other shape.
Status QueryStream::start(const ast::Query& source, Shape shape, bool* streams) {
  *streams = false;
  source_ = &source;
  const std::size_t level_count = order_.size();
  if (levels_.size() < level_count) levels_.resize(level_count);
  const EstimateSource source_state = ctx_->graph().estimate_source();
  if (source_state.state == 0 || !(source_state == attributes_source_)) {  // a write transaction's may change
    attribute_ids_.clear();
    attributes_source_ = source_state;
  }
  for (std::size_t i = 0; i < level_count; ++i) {
    DATALOG_RETURN_IF_ERROR(add_level(i, streams));
    if (!*streams) return Status::OK();
  }
  *streams = false;
  Level& root = levels_[0];
  const ast::Variable* root_value = ast::named_variable(order_.front()->v);
  if (root_value) {
    // The comparisons among the filters narrow the root's scan to the values that can pass them;
    // on integer values, those with an integer constant then hold already (value_ranges.h).
    root.filter.v_ranges = value_ranges(root_value->name, comparison_filters(source.where));
  }
  const int pattern_columns = static_cast<int>(scope_.vars.size());
  std::vector<const ast::ExprClause*> expressions;
  for (const auto& clause : source.where) {
    if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) expressions.push_back(e);
  }
  if (!place_expressions(std::move(expressions), root_value ? &root_value->name : nullptr,
                         !root.filter.v_ranges.empty())) {
    return Status::OK();
  }
  for (const auto& f : source.find) {
    const int column = scope_.column(f.var.name);
    if (column < 0) return Status::OK();  // the analyzer rejects this; run_query says how
    if (shape == Shape::Rows) find_columns_.push_back(column);
  }
  // A column moves out to its last :find element only when the next row binds it again: the
  // innermost level's own, and what its steps bind. Outer levels' values serve several rows.
  const Level& innermost = levels_[level_count - 1];
  const auto rebound_each_row = [&](int column) {
    if (column >= innermost.first_column && column < innermost.end_columns) return true;
    if (column < pattern_columns) return false;
    for (std::size_t s = innermost.first_step; s < innermost.end_steps; ++s) {
      if (steps_[s].out_column == column) return true;
    }
    return false;
  };
  for (std::size_t i = 0; i < find_columns_.size(); ++i) {
    const bool last_use = std::find(find_columns_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                    find_columns_.end(), find_columns_[i]) == find_columns_.end();
    moves_out_.push_back(last_use && rebound_each_row(find_columns_[i]));
  }
  // A value no find element, filter or later look-up reads need not be decoded (point_attribute:
  // [?e :a _]); a scan that compares values itself decodes them regardless.
  for (std::size_t i = 0; i < level_count; ++i) {
    Level& level = levels_[i];
    const int column = level.value_column;
    const auto found = [&](const ast::FindElement& f) { return f.var.name == scope_.vars[static_cast<std::size_t>(column)]; };
    const auto looks_up = [&](const Level& later) { return later.entity_from == column; };
    level.filter.values_unused =
        column < 0 || (steps_.empty() && std::none_of(source.find.begin(), source.find.end(), found) &&
                       std::none_of(levels_.begin() + static_cast<std::ptrdiff_t>(i) + 1,
                                    levels_.begin() + static_cast<std::ptrdiff_t>(level_count), looks_up));
  }
  // Aggregates grouped by the value get the datoms in value order, so equal keys come together.
  root.filter.value_order = shape == Shape::Bindings && root.value_column >= 0 &&
                            std::any_of(source.find.begin(), source.find.end(), [&](const ast::FindElement& f) {
                              return f.kind == ast::FindElement::Kind::Variable && f.var.name == root_value->name;
                            });
  // A root found by its value streams only when it is expected to hold few datoms: each is a
  // look-up per later pattern, where a hash join would scan each of them once.
  if (!empty_ && level_count > 1 && !root.filter.e &&
      ctx_->graph().estimate(root.filter) > kMaxValueRootDatoms) {
    return Status::OK();
  }
  current_.assign(scope_.vars.size(), Value::nil());
  *streams = true;
  if (empty_) return Status::OK();
  DATALOG_RETURN_IF_ERROR(ctx_->graph().open_cursor(root.filter, ctx_->view(), &root.cursor));
  root.open = true;
  return Status::OK();
}

Status QueryStream::add_level(std::size_t i, bool* streams) {
  *streams = false;
  const ast::Pattern& pattern = *order_[i];
  Level& level = levels_[i];
  level.filter.e.reset();
  level.filter.a.reset();
  level.filter.v.reset();
  level.filter.v_ranges.clear();
  level.filter.values_unused = level.filter.value_order = false;
  level.entity_from = level.entity_column = level.value_column = -1;
  level.open = false;
  const ast::Variable* e_var = ast::named_variable(pattern.e);  // stream_order checked e != v
  const ast::Variable* v_var = ast::named_variable(pattern.v);
  const auto* v_constant = std::get_if<Value>(&pattern.v);
  if (v_constant && !matches_only_itself(*v_constant)) return Status::OK();
  const Value& attribute = std::get<Value>(pattern.a);  // constant: stream_order checked
  if (attribute.is(ValueKind::Keyword)) DATALOG_RETURN_IF_ERROR(attribute_id(attribute, &level.filter.a));
  if (!level.filter.a) empty_ = true;
  if (const auto* e_constant = std::get_if<Value>(&pattern.e)) {
    // One look-up, so past the context's cache of idents (filling it would cost more).
    DATALOG_RETURN_IF_ERROR(ctx_->as_entity_uncached(*e_constant, &level.filter.e));
    if (!level.filter.e) empty_ = true;
  }
  if (v_constant) level.filter.v = *v_constant;
  level.first_column = static_cast<int>(scope_.vars.size());
  if (e_var) {
    if (i == 0) {
      level.entity_column = static_cast<int>(scope_.vars.size());
      scope_.vars.push_back(e_var->name);
    } else {
      level.entity_from = scope_.column(e_var->name);  // an earlier level's: stream_order checked
    }
  }
  if (v_var) {
    level.value_column = static_cast<int>(scope_.vars.size());
    scope_.vars.push_back(v_var->name);
  }
  level.end_columns = static_cast<int>(scope_.vars.size());
  *streams = true;
  return Status::OK();
}

Status QueryStream::attribute_id(const Value& attribute, std::optional<EntityId>* out) {
  for (const auto& [name, id] : attribute_ids_) {
    if (name == attribute) {
      *out = id;
      return Status::OK();
    }
  }
  DATALOG_RETURN_IF_ERROR(ctx_->as_entity_uncached(attribute, out));
  if (attributes_source_.state != 0 && *out) attribute_ids_.emplace_back(attribute, **out);
  return Status::OK();
}

// Places each expression at the first level where its inputs are bound (the patterns' variables
// up to that level, then what earlier bindings bind), in an order where each runs after what it
// reads; false when one waits for a variable nothing here binds, or rebinds one a pattern or an
// earlier binding binds (a join, left to run_query).
bool QueryStream::place_expressions(std::vector<const ast::ExprClause*> pending,
                                    const std::string* root_value_var, bool has_ranges) {
  const int pattern_columns = static_cast<int>(scope_.vars.size());
  std::vector<std::string> inputs;
  for (std::size_t i = 0; i < order_.size(); ++i) {
    Level& level = levels_[i];
    level.first_step = steps_.size();
    for (;;) {
      auto ready = std::find_if(pending.begin(), pending.end(), [&](const ast::ExprClause* c) {
        inputs.clear();
        expr_variables(c->expr, inputs);
        return std::all_of(inputs.begin(), inputs.end(), [&](const std::string& v) {
          const int column = scope_.column(v);
          return column >= 0 && (column < level.end_columns || column >= pattern_columns);
        });
      });
      if (ready == pending.end()) break;
      const ast::ExprClause* c = *ready;
      pending.erase(ready);
      Step step{c};
      if (c->out) {
        if (scope_.binds(c->out->name)) return false;
        step.out_column = static_cast<int>(scope_.vars.size());
        scope_.vars.push_back(c->out->name);
      } else {
        step.holds_on_integers = i == 0 && has_ranges && root_value_var && exact_on_integers(*c, *root_value_var);
      }
      steps_.push_back(step);
    }
    level.end_steps = steps_.size();
  }
  return pending.empty();
}

Status QueryStream::run_expressions(std::size_t i, bool* keep) {
  *keep = true;
  const Level& level = levels_[i];
  const bool integer = i == 0 && level.value_column >= 0 &&
                       current_[static_cast<std::size_t>(level.value_column)].is(ValueKind::Integer);
  for (std::size_t s = level.first_step; s < level.end_steps; ++s) {
    const Step& step = steps_[s];
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

Status QueryStream::open_level(std::size_t i) {
  Level& level = levels_[i];
  std::optional<EntityId> e;
  DATALOG_RETURN_IF_ERROR(ctx_->as_entity(current_[static_cast<std::size_t>(level.entity_from)], &e));
  if (!e) return Status::OK();  // a value that names no entity matches nothing here
  level.filter.e = e;
  DATALOG_RETURN_IF_ERROR(ctx_->graph().open_cursor(level.filter, ctx_->view(), &level.cursor));
  level.open = true;
  return Status::OK();
}

// Depth first: the innermost open scan gives the next datom; an ended scan hands back to the
// level before it, and a binding that passes its level's steps opens the next level's look-up.
Status QueryStream::next_binding(RowView* row, bool* found) {
  *found = false;
  if (empty_) return Status::OK();
  const std::size_t innermost = order_.size() - 1;
  for (;;) {
    Level& level = levels_[depth_];
    if (!level.open || level.cursor->at_end()) {
      level.open = false;
      if (depth_ == 0) return Status::OK();
      --depth_;
      continue;
    }
    DATALOG_RETURN_IF_ERROR(ctx_->check_interrupt());
    Datom& d = level.cursor->take_datom();
    if (level.entity_column >= 0) current_[static_cast<std::size_t>(level.entity_column)] = Value::ref(d.e);
    if (level.value_column >= 0) current_[static_cast<std::size_t>(level.value_column)] = std::move(d.v);
    DATALOG_RETURN_IF_ERROR(level.cursor->next());
    bool keep = true;
    if (level.first_step != level.end_steps) DATALOG_RETURN_IF_ERROR(run_expressions(depth_, &keep));
    if (!keep) continue;
    if (depth_ == innermost) {
      *row = current_;
      *found = true;
      return Status::OK();
    }
    ++depth_;
    DATALOG_RETURN_IF_ERROR(open_level(depth_));
  }
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
  // The binding is overwritten by the next call, so a column the next row binds again moves out
  // at its last use.
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
