// engine/functions/numeric_aggregates.h: our numeric aggregates avg, median, variance, stddev
// (semantics in aggregates.h). Internal to engine/functions/; callers use make_aggregate.
#pragma once

#include <memory>
#include <string_view>

#include "engine/functions/aggregates.h"

namespace datalog::functions {

// An accumulator for avg, median, variance or stddev; nullptr for any other name.
std::unique_ptr<Accumulator> make_statistic(std::string_view name);

}  // namespace datalog::functions
