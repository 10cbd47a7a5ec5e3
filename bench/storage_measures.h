// bench/storage_measures.h: measurements of the files rather than of queries.
//
//   fsync floor   pwrite 4 KiB + fdatasync (and + fsync) on a file in the run's folder: the least
//                 a durable commit can cost on this filesystem, measured in the same run
//   open          a new connection on an existing graph (open, load the extension, read one
//                 fact) against the same on the baseline (open, read one row)
//   bulk load     n facts in one transaction: INSERT into the store table, datalog_exec transacts
//                 of 1,000 facts inside one BEGIN/COMMIT, and INSERT into the baseline
#pragma once

#include <string>

#include "run_context.h"

namespace bench {

void measure_fsync_floor(RunContext& ctx);
// Both stores under `base` exist and no connection holds them open.
void measure_open(const std::string& base, long long n, RunContext& ctx);
void measure_bulk_load(long long n, RunContext& ctx);

}  // namespace bench
