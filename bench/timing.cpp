#include "timing.h"

#include <algorithm>

namespace bench {

Timing summarize(std::vector<double> samples_us) {
  Timing t;
  if (samples_us.empty()) return t;
  std::sort(samples_us.begin(), samples_us.end());
  const std::size_t n = samples_us.size();
  t.median_us = n % 2 == 1 ? samples_us[n / 2] : (samples_us[n / 2 - 1] + samples_us[n / 2]) / 2;
  t.min_us = samples_us.front();
  t.max_us = samples_us.back();
  t.reps = static_cast<int>(n);
  return t;
}

Timing measure(const std::function<long long()>& call, const RepetitionPolicy& policy) {
  long long rows = 0;
  const auto warm_start = Clock::now();
  do {
    rows = call();
  } while (seconds_since(warm_start) < policy.warmup_seconds);

  std::vector<double> samples;
  double measured = 0;
  while (static_cast<int>(samples.size()) < policy.max_reps &&
         (static_cast<int>(samples.size()) < policy.min_reps || measured < policy.target_seconds)) {
    const auto start = Clock::now();
    rows = call();
    const double s = seconds_since(start);
    measured += s;
    samples.push_back(s * 1e6);
  }
  Timing t = summarize(std::move(samples));
  t.rows = rows;
  return t;
}

std::vector<Timing> measure_interleaved(const std::vector<std::function<long long()>>& calls,
                                        const RepetitionPolicy& policy) {
  const std::size_t n = calls.size();
  std::vector<long long> rows(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto warm_start = Clock::now();
    do {
      rows[i] = calls[i]();
    } while (seconds_since(warm_start) < policy.warmup_seconds);
  }
  std::vector<std::vector<double>> samples(n);
  double measured = 0;
  int rounds = 0;
  while (rounds < policy.max_reps &&
         (rounds < policy.min_reps || measured < policy.target_seconds * static_cast<double>(n))) {
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(rounds)) % n;
      const auto start = Clock::now();
      rows[i] = calls[i]();
      const double s = seconds_since(start);
      measured += s;
      samples[i].push_back(s * 1e6);
    }
    ++rounds;
  }
  std::vector<Timing> out;
  for (std::size_t i = 0; i < n; ++i) {
    Timing t = summarize(std::move(samples[i]));
    t.rows = rows[i];
    out.push_back(t);
  }
  return out;
}

}  // namespace bench
