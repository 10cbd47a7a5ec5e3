#include "engine/eval/find_projector.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <numeric>
#include <utility>

#include <fmt/format.h>

#include "engine/eval/distinct_rows.h"
#include "engine/eval/pull_evaluator.h"
#include "engine/functions/aggregates.h"
#include "engine/functions/window.h"
#include "engine/interruptible_sort.h"

namespace datalog::eval {

namespace {

using Kind = ast::FindElement::Kind;

// The bindings of a relation, as a source.
class RelationSource final : public BindingSource {
 public:
  explicit RelationSource(const Relation& rel) : rel_(rel) {}
  const std::vector<std::string>& vars() const override { return rel_.vars; }
  Status next_binding(RowView* row, bool* found) override {
    *found = next_ < rel_.rows.size();
    if (*found) *row = rel_.rows[next_++];
    return Status::OK();
  }

 private:
  const Relation& rel_;
  std::size_t next_ = 0;
};

Status column_of(const std::vector<std::string>& vars, const ast::Variable& var, int* col) {
  const auto it = std::find(vars.begin(), vars.end(), var.name);
  *col = it == vars.end() ? -1 : static_cast<int>(it - vars.begin());
  if (*col < 0 && !var.is_wildcard()) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("variable {} in :find is not bound by :where", var.name));
  }
  return Status::OK();
}

using Accumulators = std::vector<std::unique_ptr<functions::Accumulator>>;

// One accumulator per aggregate element: a built-in, else an aggregate SQL function (§16);
// `sql/name` skips the built-ins. *unknown names the first function that is neither.
Status make_accumulators(EvalContext& ctx, const ast::Query& q, const std::vector<std::size_t>& elems,
                         std::optional<std::string>* unknown, Accumulators* out) {
  for (std::size_t i : elems) {
    const std::string& name = q.find[i].function;
    const std::optional<std::string> sql_name = sql_function_name(name);
    std::unique_ptr<functions::Accumulator> acc;
    if (!sql_name) acc = functions::make_aggregate(name);
    if (!acc && ctx.external_functions()) {
      bool external_found = false;
      DATALOG_RETURN_IF_ERROR(ctx.external_functions()->make_aggregate(
          ctx.graph(), sql_name.value_or(name), &external_found, &acc));
    }
    if (!acc) {
      *unknown = name;
      return Status::OK();
    }
    out->push_back(std::move(acc));
  }
  return Status::OK();
}

// The groups of an aggregating :find: their keys (the plain variables' values, in the order the
// groups first appear) and their accumulators.
class Grouping {
 public:
  Grouping(EvalContext& ctx, const ast::Query& q) : ctx_(ctx), q_(q) {}

  // Which columns of vars group and which are aggregated; *never_bound when a plain element is
  // a wildcard (it is never bound, so there are no rows).
  Status plan(const std::vector<std::string>& vars, bool* never_bound);
  // The first group's accumulators, made now to learn whether every aggregate is known:
  // *unknown names the first that is not.
  Status prepare(std::optional<std::string>* unknown) {
    return make_accumulators(ctx_, q_, agg_elems_, unknown, &spare_);
  }
  // Every binding of source into its group.
  Status fold(BindingSource& source);
  // One row per group, in ascending key order: every find element, then each aggregated variable
  // bound to its value, then the grouping variables.
  Status emit(Relation* out);

 private:
  Status new_group();

  EvalContext& ctx_;
  const ast::Query& q_;
  std::vector<int> group_cols_, agg_cols_;
  std::vector<std::size_t> group_elems_, agg_elems_;
  Accumulators spare_;
  DistinctRows keys_;
  std::vector<Accumulators> accumulators_;
  Row group_key_;
};

Status Grouping::plan(const std::vector<std::string>& vars, bool* never_bound) {
  *never_bound = false;
  for (std::size_t i = 0; i < q_.find.size(); ++i) {
    const auto& f = q_.find[i];
    if (f.kind == Kind::Variable || f.kind == Kind::Pull) {
      int col = -1;
      DATALOG_RETURN_IF_ERROR(column_of(vars, f.var, &col));
      if (col < 0) {
        *never_bound = true;
        return Status::OK();
      }
      group_cols_.push_back(col);
      group_elems_.push_back(i);
    } else if (f.kind == Kind::Aggregate) {
      agg_elems_.push_back(i);
    }
  }
  for (std::size_t i : agg_elems_) {
    int col = -1;
    DATALOG_RETURN_IF_ERROR(column_of(vars, q_.find[i].var, &col));
    agg_cols_.push_back(col);
  }
  return Status::OK();
}

Status Grouping::new_group() {
  Accumulators accs;
  if (!spare_.empty()) {
    accs = std::exchange(spare_, {});
  } else {
    std::optional<std::string> unknown;  // every name was known when prepare() made spare_
    DATALOG_RETURN_IF_ERROR(make_accumulators(ctx_, q_, agg_elems_, &unknown, &accs));
  }
  accumulators_.push_back(std::move(accs));
  return Status::OK();
}

// Groups are numbered as they first appear: keys_ holds their keys, found by hash without an
// allocation per row, and accumulators_ their accumulators.
Status Grouping::fold(BindingSource& source) {
  const Value nil;
  std::size_t seen = 0;
  std::uint32_t last_group = 0;
  std::size_t run_hits = 0, run_misses = 0;
  for (RowView row;;) {
    bool more = false;
    DATALOG_RETURN_IF_ERROR(source.next_binding(&row, &more));
    if (!more) break;
    ++seen;
    std::uint32_t group = 0;  // one group for all rows when there is no key to look up
    // Rows in key order (a scan in value order) come in runs of one group: compare with the
    // last row's group first, for as long as that pays.
    const bool try_last = group_cols_.size() == 1 && seen > 1 && run_misses <= run_hits + 16;
    if (try_last && row[static_cast<std::size_t>(group_cols_[0])] == keys_.rows()[last_group][0]) {
      group = last_group;
      ++run_hits;
    } else if (!group_cols_.empty() || seen == 1) {
      if (try_last) ++run_misses;
      // One grouping column is looked up in place; the key is copied only for a new group.
      if (group_cols_.size() == 1) {
        group = keys_.find(row.subspan(static_cast<std::size_t>(group_cols_[0]), 1));
      } else {
        group_key_.clear();
        for (int c : group_cols_) group_key_.push_back(row[static_cast<std::size_t>(c)]);
        group = keys_.find(group_key_);
      }
      if (group == DistinctRows::kNone) {
        if (group_cols_.size() == 1) group_key_.assign(1, row[static_cast<std::size_t>(group_cols_[0])]);
        bool added = false;
        group = keys_.find_or_insert_moved(group_key_, &added);
        DATALOG_RETURN_IF_ERROR(new_group());
      }
    }
    last_group = group;
    Accumulators& accs = accumulators_[group];
    for (std::size_t a = 0; a < agg_cols_.size(); ++a) {
      const Value& v = agg_cols_[a] >= 0 ? row[static_cast<std::size_t>(agg_cols_[a])] : nil;
      DATALOG_RETURN_IF_ERROR(accs[a]->add(v));
    }
  }
  if (seen == 0 && group_cols_.empty()) {
    // No rows and no grouping: one row when every aggregate has a value for nothing (count 0).
    const bool zero_row = std::all_of(agg_elems_.begin(), agg_elems_.end(), [&](std::size_t i) {
      return functions::zero_row_on_empty_input(q_.find[i].function);
    });
    if (zero_row && !agg_elems_.empty()) {
      bool added = false;
      keys_.find_or_insert_moved(group_key_, &added);
      DATALOG_RETURN_IF_ERROR(new_group());
    }
  }
  return Status::OK();
}

Status Grouping::emit(Relation* out) {
  std::vector<std::uint32_t> order(accumulators_.size());
  std::iota(order.begin(), order.end(), 0u);
  DATALOG_RETURN_IF_ERROR(interruptible_sort(
      order.begin(), order.end(),
      [&](std::uint32_t a, std::uint32_t b) {
        const RowView ka = keys_.rows()[a], kb = keys_.rows()[b];
        return std::lexicographical_compare(ka.begin(), ka.end(), kb.begin(), kb.end());
      },
      [this] { return ctx_.check_interrupt(); }, /*stable=*/false));
  out->vars.clear();
  for (std::size_t i = 0; i < q_.find.size(); ++i) out->vars.push_back("#" + std::to_string(i));
  for (std::size_t i : agg_elems_) {
    const std::string& v = q_.find[i].var.name;
    if (!out->binds(v) && std::count_if(agg_elems_.begin(), agg_elems_.end(), [&](std::size_t j) {
          return q_.find[j].var.name == v;
        }) == 1) {
      out->vars.push_back(v);
    }
  }
  for (std::size_t g = 0; g < group_elems_.size(); ++g) {
    if (!out->binds(q_.find[group_elems_[g]].var.name)) out->vars.push_back(q_.find[group_elems_[g]].var.name);
  }
  for (const std::uint32_t n : order) {
    const RowView key = keys_.rows()[n];
    Accumulators& accs = accumulators_[n];
    Row row(out->vars.size());
    bool keep = true;
    for (std::size_t g = 0; g < group_elems_.size(); ++g) {
      row[group_elems_[g]] = key[g];
      row[static_cast<std::size_t>(out->column(q_.find[group_elems_[g]].var.name))] = key[g];
    }
    for (std::size_t a = 0; a < agg_elems_.size() && keep; ++a) {
      std::optional<Value> v;
      DATALOG_RETURN_IF_ERROR(accs[a]->finish(&v));
      if (!v) {
        keep = false;
        break;
      }
      row[agg_elems_[a]] = *v;
      const int bound = out->column(q_.find[agg_elems_[a]].var.name);
      if (bound >= static_cast<int>(q_.find.size())) row[static_cast<std::size_t>(bound)] = *v;
    }
    if (keep) out->rows.push_back(std::move(row));
  }
  return Status::OK();
}

// Plain variables and aggregates: one row per group, groups in ascending order. A pulled
// variable groups like a plain one (as in Datomic); its group key is pulled afterwards.
Status aggregate(EvalContext& ctx, const ast::Query& q, BindingSource& source, Relation* out) {
  Grouping groups(ctx, q);
  bool never_bound = false;
  DATALOG_RETURN_IF_ERROR(groups.plan(source.vars(), &never_bound));
  if (never_bound) return Status::OK();  // no rows
  // Like Minigraf, an unknown aggregate is an error only once a group has rows.
  std::optional<std::string> unknown;
  DATALOG_RETURN_IF_ERROR(groups.prepare(&unknown));
  if (unknown) {
    RowView first;
    bool found = false;
    DATALOG_RETURN_IF_ERROR(source.next_binding(&first, &found));
    if (found) return functions::unknown_aggregate_error(*unknown);
    out->vars.clear();
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(groups.fold(source));
  return groups.emit(out);
}

// One partition's window values, rows in window order: a built-in window function, else an
// aggregate SQL function (§16) over a running frame.
Status window_values(EvalContext& ctx, const std::string& name, std::span<const Value> args,
                     std::span<const Value> order_keys, ValueBuffer* out) {
  const std::optional<std::string> sql_name = sql_function_name(name);
  if (!sql_name) {
    if (const auto fn = functions::find_window_function(name)) {
      *out = functions::evaluate_window(*fn, args, order_keys);
      return Status::OK();
    }
  }
  bool found = false;
  if (ctx.external_functions()) {
    std::vector<Value> values;
    DATALOG_RETURN_IF_ERROR(
        ctx.external_functions()->window(ctx.graph(), sql_name.value_or(name), args, &found, &values));
    out->assign(std::make_move_iterator(values.begin()), std::make_move_iterator(values.end()));
  }
  if (!found) return functions::check_window_function(name);
  return Status::OK();
}

// Rows between two polls of interrupt and progress handler in the window's linear passes.
constexpr std::size_t kRowsPerPoll = 4096;

// Window values for every row of rel, in rel's order (LANGUAGE.md §14). collapsed: rel holds
// the groups of an aggregation, which ran first (as in Minigraf); a variable that is not one of
// its grouping variables has no single value in a group, so the window reads it as nil there
// (sum gives 0, every row ties on the order).
Status windows(EvalContext& ctx, const ast::Query& q, const Relation& rel, bool collapsed,
               std::size_t elem, ValueBuffer* out) {
  const auto& f = q.find[elem];
  // Minigraf's refusals (count-distinct with :over ...) come first; unknown names may be SQL's.
  if (functions::is_known_aggregate(f.function) && !functions::find_window_function(f.function)) {
    return functions::check_window_function(f.function);
  }
  const ast::WindowSpec& spec = *f.over;
  const int order_col = rel.column(spec.order_by.name);
  const int part_col = spec.partition_by ? rel.column(spec.partition_by->name) : -1;
  const int arg_col = f.has_var ? rel.column(f.var.name) : -1;
  if (order_col < 0 && !collapsed) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("variable {} in :order-by is not bound by :where", spec.order_by.name));
  }
  auto cell = [&](std::size_t r, int col) { return col >= 0 ? rel.rows[r][static_cast<std::size_t>(col)] : Value::nil(); };
  std::map<Value, std::vector<std::size_t>> partitions;
  for (std::size_t r = 0; r < rel.rows.size(); ++r) {
    if (r % kRowsPerPoll == 0) DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
    partitions[cell(r, part_col)].push_back(r);
  }
  // One value per row, made a block at a time: first touching hundreds of megabytes of new pages
  // takes the kernel long enough that it must be polled too.
  out->clear();
  out->reserve(rel.rows.size());
  while (out->size() < rel.rows.size()) {
    DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
    out->resize(std::min(rel.rows.size(), out->size() + kRowsPerPoll), Value::nil());
  }
  // A partition's keys and arguments, as large as the relation: allocated as relation cells are
  // (large_buffer_allocator.h), and reused from partition to partition.
  ValueBuffer keys, args, sorted_keys, values;
  for (const auto& [key, members] : partitions) {
    keys.clear();
    keys.reserve(members.size());
    for (std::size_t r : members) keys.push_back(cell(r, order_col));
    std::vector<std::size_t> order;
    DATALOG_RETURN_IF_ERROR(functions::window_sort_order(keys, spec.order == ast::Order::Desc,
                                                         [&ctx] { return ctx.check_interrupt(); }, &order));
    args.clear();
    sorted_keys.clear();
    args.reserve(order.size());
    sorted_keys.reserve(order.size());
    for (std::size_t k = 0; k < order.size(); ++k) {
      if (k % kRowsPerPoll == 0) DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
      const std::size_t r = members[order[k]];
      args.push_back(cell(r, arg_col));
      sorted_keys.push_back(keys[order[k]]);
    }
    DATALOG_RETURN_IF_ERROR(window_values(ctx, f.function, args, sorted_keys, &values));
    DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
    for (std::size_t k = 0; k < order.size() && k < values.size(); ++k) {
      (*out)[members[order[k]]] = values[k];
    }
  }
  return Status::OK();
}

}  // namespace

Status project_find(EvalContext& ctx, const ast::Query& q, const Relation& bindings,
                    RowStore* rows) {
  rows->clear();
  const Limits& limits = ctx.limits();
  const bool has_aggregate = std::any_of(q.find.begin(), q.find.end(),
                                         [](const auto& f) { return f.kind == Kind::Aggregate; });
  const bool has_window = std::any_of(q.find.begin(), q.find.end(),
                                      [](const auto& f) { return f.kind == Kind::Window; });
  // One evaluator per pull element, kept for the whole projection: it pulls each entity once.
  std::vector<std::unique_ptr<PullEvaluator>> pulls(q.find.size());
  for (std::size_t i = 0; i < q.find.size(); ++i) {
    const auto& f = q.find[i];
    if (f.kind != Kind::Pull) continue;
    if (!f.pull) return Status(StatusCode::Internal, fmt::format("{} has no parsed pattern", f.header));
    pulls[i] = std::make_unique<PullEvaluator>(ctx, *f.pull, fmt::format("(pull {} ...)", f.var.name));
  }
  Relation base;
  if (has_aggregate) {
    RelationSource rows_in(bindings);
    DATALOG_RETURN_IF_ERROR(aggregate(ctx, q, rows_in, &base));
  } else {
    base.vars = bindings.vars;
    for (std::size_t i = 0; i < q.find.size(); ++i) {
      if (q.find[i].kind != Kind::Variable && q.find[i].kind != Kind::Pull) continue;
      int col = -1;
      DATALOG_RETURN_IF_ERROR(column_of(bindings.vars, q.find[i].var, &col));
      if (col < 0) return Status::OK();  // a wildcard in :find: no rows (§6)
    }
  }
  const Relation& source = has_aggregate ? base : bindings;
  std::vector<ValueBuffer> window_values(q.find.size());
  if (has_window) {
    for (std::size_t i = 0; i < q.find.size(); ++i) {
      if (q.find[i].kind == Kind::Window) {
        DATALOG_RETURN_IF_ERROR(windows(ctx, q, source, has_aggregate, i, &window_values[i]));
      }
    }
  }
  if (static_cast<std::int64_t>(source.rows.size()) > limits.max_results) {
    return max_results_exceeded(limits);
  }
  std::vector<std::size_t> columns(q.find.size(), 0);  // looked up once, not per row
  for (std::size_t i = 0; i < q.find.size() && !has_aggregate; ++i) {
    if (q.find[i].kind != Kind::Window) columns[i] = static_cast<std::size_t>(source.column(q.find[i].var.name));
  }
  rows->reserve(source.rows.size(), q.find.size());
  Row row;  // refilled for every row
  for (std::size_t r = 0; r < source.rows.size(); ++r) {
    if (r % kRowsPerPoll == 0) DATALOG_RETURN_IF_ERROR(ctx.check_interrupt());
    row.clear();
    for (std::size_t i = 0; i < q.find.size(); ++i) {
      const auto& f = q.find[i];
      if (f.kind == Kind::Window) {
        row.push_back(window_values[i][r]);
      } else if (has_aggregate) {
        row.push_back(source.rows[r][i]);
      } else {
        row.push_back(source.rows[r][columns[i]]);
      }
      if (f.kind == Kind::Pull) {
        const Value entity = row.back();
        DATALOG_RETURN_IF_ERROR(pulls[i]->pull(entity, &row.back()));
      }
    }
    rows->push_back_moved(row);
  }
  return Status::OK();
}

Status project_aggregates(EvalContext& ctx, const ast::Query& q, BindingSource& bindings,
                          RowStore* rows) {
  rows->clear();
  Relation groups;
  DATALOG_RETURN_IF_ERROR(aggregate(ctx, q, bindings, &groups));
  if (static_cast<std::int64_t>(groups.rows.size()) > ctx.limits().max_results) {
    return max_results_exceeded(ctx.limits());
  }
  rows->reserve(groups.rows.size(), q.find.size());
  for (RowView g : groups.rows) rows->push_back(g.first(q.find.size()));
  return Status::OK();
}

}  // namespace datalog::eval
