// lmdb_store/index_check.h: an index compared, table by table and record by record, with one
// made from the same log rows (datalog_check). A fresh replay is the definition of a correct
// index, so any difference is damage, a lost write or a bug; the four datom indexes are also
// checked against each other (each holds every record once, VAET every reference).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lmdb_store/graph_env.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::store {

struct IndexCheck {
  static constexpr std::size_t kMaxProblems = 20;  // described; the rest only counted
  std::vector<std::string> problems;
  std::uint64_t problem_count = 0;
  std::uint64_t eavt = 0, aevt = 0, avet = 0, vaet = 0;  // records in the checked index
};

// Compares the tables of index (read in index_txn) with those of expected (read in
// expected_txn). Table `meta` is not compared: it holds the index's owner and position.
Status compare_indexes(const GraphEnv& index, MDB_txn* index_txn, const GraphEnv& expected,
                       MDB_txn* expected_txn, IndexCheck* out);

}  // namespace datalog::store
