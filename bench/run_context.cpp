#include "run_context.h"

#include <cstdio>

namespace bench {

JsonObject timing_record(const std::string& group, const std::string& workload, long long size,
                         const std::string& impl, const Timing& t) {
  JsonObject record;
  record.add("group", group).add("workload", workload).add("size", size).add("impl", impl);
  record.add("median_us", t.median_us).add("min_us", t.min_us).add("max_us", t.max_us);
  record.add("reps", t.reps).add("rows", t.rows);
  return record;
}

void progress(const RunContext& ctx, const std::string& message) {
  std::fprintf(stderr, "[%7.1f s] %s\n", seconds_since(ctx.started), message.c_str());
}

}  // namespace bench
