// bench/query_runner.h: runs one read workload at one size on the three paths and records them.
//
//   named   `CREATE VIRTUAL TABLE qN USING datalog_query(g, '<query>')`, then
//           `SELECT * FROM qN` (or `qN(?1)` with slot arguments), prepared once
//   adhoc   `SELECT * FROM datalog_q('g', ?1 [, ?2])`, prepared once, the query text bound per call
//           (so the Datalog is parsed and planned on every call, as for any ad hoc query)
//   sqlite  the workload's SQL on the baseline's facts table, prepared once
//
// All three must return the same number of rows; a difference is recorded as a mismatch and
// printed loudly.
#pragma once

#include "query_workloads.h"
#include "run_context.h"
#include "sqlite_session.h"

namespace bench {

void run_query_workload(const QueryWorkload& w, long long n, Connection& ours, Connection& plain,
                        int table_number, RunContext& ctx);

}  // namespace bench
