// bench/storage_measures.h: measurements of the files rather than of queries.
//
//   fsync floor   pwrite 4 KiB + fdatasync (and + fsync) on a file in the run's folder: the least
//                 a durable commit can cost on this filesystem, measured in the same run
//   commit I/O    the I/O of one LMDB commit replayed without LMDB: `pages` 4 KiB writes at
//                 scattered offsets, fdatasync, then the 120-byte meta write through an O_DSYNC
//                 descriptor (LMDB's protocol); what a durable commit of that many pages costs here
//   open          a new connection on an existing graph (open, load the extension, read one
//                 fact) against the same on the baseline (open, read one row)
//   bulk load     n facts in one transaction: INSERT into the store table, datalog_exec transacts
//                 of 1,000 facts inside one BEGIN/COMMIT, and INSERT into the baseline
#pragma once

#include <string>

#include "run_context.h"

namespace bench {

void measure_fsync_floor(RunContext& ctx);
// `pages` is what one commit of ours wrote at size n (write_runner.cpp measures it); the record
// is fsync/`workload` at size n.
void measure_commit_io(const std::string& workload, double pages, long long n, RunContext& ctx);
// Both stores under `base` exist and no connection holds them open.
void measure_open(const std::string& base, long long n, RunContext& ctx);
void measure_bulk_load(long long n, RunContext& ctx);

}  // namespace bench
