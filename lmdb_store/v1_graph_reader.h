// lmdb_store/v1_graph_reader.h: a graph of the first storage format, read as log rows.
//
// In storage format 1 a graph's LMDB file held the only copy of its facts (format version 1 in
// its meta table). Its transaction log table (tx_log_format.h) kept, per transaction, the wall
// time, the datom count and every datom record written, in order; idents, long values and rules
// sat in their own tables. That is enough to write the graph as the log of storage format 2
// (log_records.h): rows that WriteTxn::replay_row, in order, turns into the same graph — the
// same transaction counters and times, idents with the same entity ids, the same records:
// - the first row (of the first transaction) creates every ident, in id order;
// - each transaction replays its datoms as the calls that wrote them: an assertion or a
//   reassertion is an assert with its valid interval, a retraction a retract (the replay
//   decides again, as the writer did, what is a reassertion and which reassertions a retraction
//   cancels);
// - a transaction that stored fewer datoms than it counted, or none (only elided retractions),
//   takes its counter with a 'c' record;
// - the rules (format 1 kept no transaction for them) go in the last row.
// Rows are cut at about 1 MiB, like a writer's (continuation rows keep the transaction's
// counter); they are handed on one at a time, so memory stays bounded by a row.
//
// Nothing here writes to the file. A malformed file is Corrupt, naming the file and what is
// wrong; a file of another format is NotAGraph.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "lmdb_store/graph_env.h"
#include "lmdb_store/log_records.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::store {

class V1GraphReader {
 public:
  // Opens the graph at path without creating anything; it must be of storage format 1.
  static Status open(const std::string& path, std::unique_ptr<V1GraphReader>* out);

  // What read() found.
  struct Counts {
    std::uint64_t transactions = 0, idents = 0, datoms = 0, rules = 0, rows = 0;
  };
  // Calls each with the graph's log rows in order (seq left 0), from one read snapshot of the
  // file. Stops at the first error, its own or each's.
  Status read(const std::function<Status(LogRow&)>& each, Counts* counts);

 private:
  explicit V1GraphReader(std::shared_ptr<GraphEnv> env) : env_(std::move(env)) {}
  std::shared_ptr<GraphEnv> env_;
};

}  // namespace datalog::store
