// bench/write_runner.h: durable writes on the `populate` data, ours against the baseline.
//
// Every measured call is one committed, fsynced transaction on both sides (LMDB commit; SQLite
// WAL with synchronous=FULL):
//   insert/single_fact   ours `(transact [[:ebench :val 0]])`       plain INSERT OR REPLACE one row
//   insert/batch_100     ours one transact of [:eb0 :val 0]..[:eb99 :val 99]   plain 100 rows, one txn
//   insert/explicit_tx   BEGIN; the single fact; COMMIT               plain the same
//   retract/single_fact  ours `(retract [[:e0 :val 0]])`             plain UPDATE ... SET valid_to
//   retract/batch_100    ours retract [:e0..:e99 :val i]             plain 100 UPDATEs, one txn
// The baseline keeps no history, so its "retraction" closes the row's valid time, which is the
// nearest equivalent write (a DELETE of an already-deleted row would write nothing).
#pragma once

#include "run_context.h"
#include "sqlite_session.h"

namespace bench {

void run_write_workloads(long long n, Connection& ours, Connection& plain, RunContext& ctx);

}  // namespace bench
