// extension/index_check_function.h: datalog_check — the graph's index compared with a new one made from
// its log in a private temporary file, record by record (lmdb_store/index_check.h).
#pragma once

#include <cstdint>

#include "extension/graph_session.h"
#include "lmdb_store/index_check.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext {

// Brings the index up to the log this connection sees, then compares it with a replay of the
// same rows; *rows: the log rows replayed. Not inside a transaction that writes the graph.
store::Status check_graph(GraphSession& session, store::IndexCheck* out, std::uint64_t* rows);

}  // namespace datalog::ext
