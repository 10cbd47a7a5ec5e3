// bench/memory_profile.h: peak heap and peak RSS for loading N facts plus one query.
//
// Each measurement runs in a fresh process (this program re-executed with --memory-child), so
// the figures hold nothing of the parent: the child starts heap counting, opens the store, loads
// [:e{i} :val i] for i < N in transactions of 1,000 facts (ours: one datalog_exec transact per
// 1,000, autocommit; baseline: 1,000 INSERTs between BEGIN and COMMIT), runs the point query
// once, and prints its peak heap (heap_counter.h) and getrusage's ru_maxrss.
#pragma once

#include <string>

#include "run_context.h"

namespace bench {

// The child's entry point; `kind` is "exec" or "sqlite". Returns the exit code.
int memory_child_main(const std::string& kind, long long n, const std::string& dir);
void measure_memory(long long n, RunContext& ctx);

}  // namespace bench
