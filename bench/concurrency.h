// bench/concurrency.h: aggregate read throughput with several readers, with and without a
// concurrent writer.
//
// Readers run the point query `[:e0 :val ?v]` in a loop for a fixed time, each on its own
// connection: ours through a named query table, the baseline through its SQL, and a machine
// reference (the baseline's table and query in a private in-memory database per reader, with
// sqlite-datalog's writer beside it): what it loses to a second reader or to the writer is what
// the machine itself takes. Readers connect and run the query once before the timed window
// opens. Shapes: 1 reader
// thread, 2 reader threads, 2 reader processes (forked children that open the same files; the
// extension's environment registry is fork-aware, and the children open their own connections).
// The writer, when present, is a thread of this process committing single-fact transactions
// (durable) for the whole time. Throughput is total queries / elapsed seconds.
#pragma once

#include <string>

#include "run_context.h"

namespace bench {

// Both stores under `base` hold the `populate` data of size n.
void measure_concurrency(const std::string& base, long long n, RunContext& ctx);

}  // namespace bench
