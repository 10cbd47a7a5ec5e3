// Minigraf's aggregates (count, count-distinct, sum, sum-distinct, min, max) and the registry
// of every aggregate. The numeric extensions live in statistics.cpp.
#include "engine/functions/aggregates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/functions/value_order.h"
#include "engine/functions/number_sum.h"
#include "engine/functions/numeric_aggregates.h"
#include "engine/value_hash.h"

namespace datalog::functions {

namespace {

Status query_error(std::string message) {
  return Status(StatusCode::InvalidArgument, std::move(message));
}

class CountAccumulator final : public Accumulator {
 public:
  Status add(const Value& v) override {
    if (!v.is(ValueKind::Nil)) ++count_;
    return Status::OK();
  }
  Status finish(std::optional<Value>* out) override {
    *out = Value::integer(count_);
    return Status::OK();
  }

 private:
  std::int64_t count_ = 0;
};

// Distinct by Value's equality (a hash set: an ordered set compared values through a visit at
// every step, 52% of a count-distinct over 10K values).
using DistinctValues = std::unordered_set<Value, ValueHash>;

class CountDistinctAccumulator final : public Accumulator {
 public:
  Status add(const Value& v) override {
    if (!v.is(ValueKind::Nil)) seen_.insert(v);
    return Status::OK();
  }
  Status finish(std::optional<Value>* out) override {
    *out = Value::integer(static_cast<std::int64_t>(seen_.size()));
    return Status::OK();
  }

 private:
  DistinctValues seen_;
};

// Minigraf's sum: see number_sum.h for how integers and floats mix.
class SumAccumulator final : public Accumulator {
 public:
  Status add(const Value& v) override {
    if (v.is(ValueKind::Nil) || sum_.add(v)) return Status::OK();
    return query_error(fmt::format("sum: expected Integer, Float, or Null, got {}",
                                   type_name_for_message(v.kind())));
  }
  Status finish(std::optional<Value>* out) override {
    *out = sum_.value();
    return Status::OK();
  }

 private:
  NumberSum sum_;
};

// Keeps the distinct values, then sums them in ascending order at the end (Minigraf's
// BTreeSet order), so the error names the first offending kind in that order.
class SumDistinctAccumulator final : public Accumulator {
 public:
  Status add(const Value& v) override {
    if (!v.is(ValueKind::Nil)) seen_.insert(v);
    return Status::OK();
  }
  Status finish(std::optional<Value>* out) override {
    std::vector<Value> ordered(seen_.begin(), seen_.end());
    std::sort(ordered.begin(), ordered.end());
    SumAccumulator sum;
    for (const Value& v : ordered) DATALOG_RETURN_IF_ERROR(sum.add(v));
    return sum.finish(out);
  }

 private:
  DistinctValues seen_;
};

bool min_max_comparable(ValueKind kind) {
  return kind == ValueKind::Integer || kind == ValueKind::Float || kind == ValueKind::String ||
         kind == ValueKind::Instant;
}

// The group's first value fixes its kind. A value of another kind is an error at once (the
// first mismatch in row order, as Minigraf's scan); a group of a kind min/max cannot order
// is an error at finish, so a mismatch anywhere in the group takes precedence, as in Minigraf.
class MinMaxAccumulator final : public Accumulator {
 public:
  explicit MinMaxAccumulator(bool is_min) : is_min_(is_min) {}

  Status add(const Value& v) override {
    if (v.is(ValueKind::Nil)) return Status::OK();
    if (!best_) {
      best_ = v;
      kind_ = v.kind();
      return Status::OK();
    }
    if (v.kind() != kind_) {
      return query_error(fmt::format("{}: cannot compare {} and {} values", name(),
                                     type_name_for_message(kind_),
                                     type_name_for_message(v.kind())));
    }
    // Strictly better only: ties keep the first value seen.
    if (min_max_comparable(kind_) &&
        (is_min_ ? less_for_window(v, *best_) : less_for_window(*best_, v))) {
      best_ = v;
    }
    return Status::OK();
  }

  Status finish(std::optional<Value>* out) override {
    if (!best_) {  // all nil: the evaluator drops the group
      out->reset();
      return Status::OK();
    }
    if (!min_max_comparable(kind_)) {
      return query_error(fmt::format("{}: expected Integer, Float, String, or Null, got {}", name(),
                                     type_name_for_message(kind_)));
    }
    *out = *best_;
    return Status::OK();
  }

 private:
  std::string_view name() const { return is_min_ ? "min" : "max"; }

  bool is_min_;
  std::optional<Value> best_;
  ValueKind kind_ = ValueKind::Nil;
};

}  // namespace

std::unique_ptr<Accumulator> make_aggregate(std::string_view name) {
  if (name == "count") return std::make_unique<CountAccumulator>();
  if (name == "count-distinct") return std::make_unique<CountDistinctAccumulator>();
  if (name == "sum") return std::make_unique<SumAccumulator>();
  if (name == "sum-distinct") return std::make_unique<SumDistinctAccumulator>();
  if (name == "min") return std::make_unique<MinMaxAccumulator>(/*is_min=*/true);
  if (name == "max") return std::make_unique<MinMaxAccumulator>(/*is_min=*/false);
  return make_statistic(name);
}

// Asked at plan time only, so building (and dropping) one accumulator is cheap enough, and the
// factory stays the single list of names.
bool is_known_aggregate(std::string_view name) { return make_aggregate(name) != nullptr; }

Status unknown_aggregate_error(std::string_view name) {
  return query_error(fmt::format("unknown aggregate function: '{}'", name));
}

bool zero_row_on_empty_input(std::string_view name) {
  return name == "count" || name == "count-distinct";
}

std::string_view type_name_for_message(ValueKind kind) {
  switch (kind) {
    case ValueKind::String:
      return "String";
    case ValueKind::Integer:
      return "Integer";
    case ValueKind::Float:
      return "Float";
    case ValueKind::Boolean:
      return "Boolean";
    case ValueKind::Instant:
      return "Instant";
    case ValueKind::Ref:
      return "Ref";
    case ValueKind::Uuid:
      return "Uuid";
    case ValueKind::Keyword:
      return "Keyword";
    case ValueKind::Bytes:
      return "Bytes";
    case ValueKind::Nil:
      return "Null";
  }
  return "Unknown";
}

}  // namespace datalog::functions
