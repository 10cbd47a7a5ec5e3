// bench/timing.h: repeated timing of one call, and the summary the reports print.
//
// A call is warmed up (at least once, up to a small time budget), then repeated until the run
// has both `min_reps` calls and `target_seconds` of measured time, or `max_reps` calls. Fast
// calls therefore get many repetitions and slow ones few, which keeps a full run bounded.
#pragma once

#include <chrono>
#include <functional>
#include <vector>

namespace bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct RepetitionPolicy {
  double warmup_seconds = 0.05;
  double target_seconds = 0.3;
  int min_reps = 5;
  int max_reps = 200;
};

struct Timing {
  double median_us = 0;
  double min_us = 0;
  double max_us = 0;
  int reps = 0;
  long long rows = 0;  // what the last call returned (rows, or rows changed)
};

// Times `call`, which returns its row count (of the last call, in Timing::rows).
Timing measure(const std::function<long long()>& call, const RepetitionPolicy& policy);

// Times several calls side by side: each is warmed up, then every round calls each once (the
// order rotating from round to round), until every call has min_reps samples and together
// they have target_seconds per call, or max_reps rounds. A change in the machine's speed
// during the measurement (this is a shared virtual machine) then reaches all of them alike, so
// the ratios between them hold, where timing one after the other let them drift apart.
std::vector<Timing> measure_interleaved(const std::vector<std::function<long long()>>& calls,
                                        const RepetitionPolicy& policy);

// Median, min and max of a sample in microseconds.
Timing summarize(std::vector<double> samples_us);

}  // namespace bench
