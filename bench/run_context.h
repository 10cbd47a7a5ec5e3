// bench/run_context.h: what every part of a run shares: the repetition policy, where files go,
// and the list of result records that becomes the run's JSON.
#pragma once

#include <string>
#include <vector>

#include "json_writer.h"
#include "timing.h"

namespace bench {

struct RunContext {
  bool quick = false;
  std::string dir;            // scratch folder for the stores
  RepetitionPolicy reads;     // query workloads
  RepetitionPolicy writes;    // durable writes (each call waits for fsync)
  double concurrency_seconds = 2.0;
  std::vector<JsonObject> results;  // one per (workload, size, implementation)
  std::vector<JsonObject> mismatches;
  Clock::time_point started = Clock::now();
};

// A result record with the common fields filled in.
JsonObject timing_record(const std::string& group, const std::string& workload, long long size,
                         const std::string& impl, const Timing& t);

// Progress on stderr: "[  12.3 s] message".
void progress(const RunContext& ctx, const std::string& message);

}  // namespace bench
