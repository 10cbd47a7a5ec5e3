// avg, median, variance, stddev: aggregates over numbers that always give a Float (or nil for
// an all-nil group). A non-number is a query error worded like Minigraf's sum error.
#include "engine/functions/numeric_aggregates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace datalog::functions {

namespace {

// Checks and converts each non-nil value, and leaves the statistic to the subclass.
class NumericAccumulator : public Accumulator {
 public:
  explicit NumericAccumulator(std::string_view name) : name_(name) {}

  Status add(const Value& v) final {
    switch (v.kind()) {
      case ValueKind::Nil:
        return Status::OK();
      case ValueKind::Integer:
        add_number(static_cast<double>(v.as_integer()));
        break;
      case ValueKind::Float:
        add_number(v.as_float());
        break;
      default:
        return Status(StatusCode::InvalidArgument,
                      fmt::format("{}: expected Integer, Float, or Null, got {}", name_,
                                  type_name_for_message(v.kind())));
    }
    ++count_;
    return Status::OK();
  }

  Status finish(std::optional<Value>* out) final {
    if (count_ == 0) {
      *out = Value::nil();
    } else {
      *out = Value::floating(result());
    }
    return Status::OK();
  }

 protected:
  virtual void add_number(double d) = 0;
  virtual double result() = 0;  // called only when count() > 0
  std::int64_t count() const { return count_; }

 private:
  std::string_view name_;  // a literal from make_statistic
  std::int64_t count_ = 0;
};

// Sum in row order, then one division: the same arithmetic as Minigraf's window avg.
class AvgAccumulator final : public NumericAccumulator {
 public:
  AvgAccumulator() : NumericAccumulator("avg") {}

 private:
  void add_number(double d) override { sum_ += d; }
  double result() override { return sum_ / static_cast<double>(count()); }
  double sum_ = 0.0;
};

class MedianAccumulator final : public NumericAccumulator {
 public:
  MedianAccumulator() : NumericAccumulator("median") {}

 private:
  void add_number(double d) override { values_.push_back(d); }
  // Selection instead of a full sort: O(n) on average.
  double result() override {
    const std::size_t mid = values_.size() / 2;
    std::nth_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(mid),
                     values_.end());
    const double upper = values_[mid];
    if (values_.size() % 2 == 1) return upper;
    // The lower middle is the largest value left of mid after nth_element.
    const double lower =
        *std::max_element(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(mid));
    return lower / 2 + upper / 2;  // halves first: no overflow to infinity
  }
  std::vector<double> values_;
};

// Welford's online algorithm: one pass, no catastrophic cancellation of sum-of-squares.
class VarianceAccumulator final : public NumericAccumulator {
 public:
  VarianceAccumulator(std::string_view name, bool take_root)
      : NumericAccumulator(name), take_root_(take_root) {}

 private:
  void add_number(double d) override {
    ++n_;
    const double delta = d - mean_;
    mean_ += delta / n_;
    m2_ += delta * (d - mean_);
  }
  double result() override {
    const double population_variance = m2_ / n_;
    return take_root_ ? std::sqrt(population_variance) : population_variance;
  }
  bool take_root_;
  double n_ = 0.0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

}  // namespace

std::unique_ptr<Accumulator> make_statistic(std::string_view name) {
  if (name == "avg") return std::make_unique<AvgAccumulator>();
  if (name == "median") return std::make_unique<MedianAccumulator>();
  if (name == "variance") return std::make_unique<VarianceAccumulator>("variance", false);
  if (name == "stddev") return std::make_unique<VarianceAccumulator>("stddev", true);
  return nullptr;
}

}  // namespace datalog::functions
