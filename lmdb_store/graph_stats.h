// lmdb_store/graph_stats.h: the statistics planners read (stored by catalog.h, shared by
// read_cache.h).
#pragma once

#include <cstdint>

namespace datalog::store {

struct AttributeStats {
  std::uint64_t records = 0;   // index records (assertions and retractions) of the attribute
  std::uint64_t entities = 0;  // distinct entities that have the attribute
  std::uint64_t values = 0;    // distinct values of the attribute
};
struct GraphStats {
  std::uint64_t records = 0;
  std::uint64_t entities = 0;
  std::uint64_t attributes = 0;
  std::uint64_t last_tx = 0;
};

}  // namespace datalog::store
