// engine/interruptible_sort.h: sorting that a long query can stop. The comparison polls every
// kComparesPerPoll calls (interrupt, progress handler, memory budget: EvalContext's
// check_interrupt); a stop unwinds the sort with an exception caught right here, so it never
// leaves this function. The range's contents are then unspecified (std::stable_sort may have
// moved elements into its buffer): the caller returns the status and discards the range.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>

#include "engine/status.h"

namespace datalog {

using SortPoll = std::function<Status()>;

inline constexpr std::uint32_t kComparesPerPoll = 1u << 14;

template <class It, class Less>
Status interruptible_sort(It first, It last, Less less, const SortPoll& poll, bool stable) {
  struct Stopped {
    Status status;
  };
  std::uint32_t compares = 0;
  auto polled_less = [&](const auto& a, const auto& b) {
    if (poll && ++compares % kComparesPerPoll == 0) {
      Status st = poll();
      if (!st.ok()) throw Stopped{std::move(st)};
    }
    return less(a, b);
  };
  try {
    if (stable) {
      std::stable_sort(first, last, polled_less);
    } else {
      std::sort(first, last, polled_less);
    }
  } catch (Stopped& stopped) {
    return std::move(stopped.status);
  }
  return Status::OK();
}

}  // namespace datalog
