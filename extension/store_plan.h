// extension/store_plan.h: how the store table answers a WHERE clause (xBestIndex and xFilter).
//
// Plan encoding (what xBestIndex hands to xFilter):
//   idxNum = the PlanIndex; idxStr = "<index> <codes>", one code per xFilter argument, in order:
//     e  entity =        a  attribute =      v  value =          t  vtype =
//     >  value >, >=     <  value <, <=      o  as_of =          w  valid_at =
//   e.g. "eavt ea" (entity and attribute prefix of EAVT), "avet a><" (a value range in AVET).
// Constraints are never omitted except as_of / valid_at (the table reproduces them exactly):
// SQLite re-checks the rest, so key ranges only need to cover every row that can match.
//
// Index choice: entity -> EAVT; attribute + value (or value range) -> AVET; attribute -> AEVT;
// value with vtype = 'ref' -> VAET; otherwise a full EAVT scan. Costs come from the graph's
// statistics (records, entities, attributes): about log2(N) per seek plus the rows expected.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "extension/sqlite_api.h"
#include "lmdb_store/catalog.h"

namespace datalog::ext {

enum class PlanIndex : int { Scan = 0, Eavt = 1, Aevt = 2, Avet = 3, Vaet = 4 };
const char* plan_index_name(PlanIndex index);

struct UsableConstraints {
  bool e = false, a = false, v = false, vtype = false, lower = false, upper = false;
};

struct StorePlan {
  PlanIndex index = PlanIndex::Scan;
  UsableConstraints use;  // which constraints become xFilter arguments
  double cost = 0;
  double rows = 0;
};

StorePlan choose_store_plan(const UsableConstraints& usable, const store::GraphStats& stats);

// Key ranges [first, second) over encoded values (no attribute prefix) that hold every stored
// value v for which `v > lower` / `v < upper` (or >=, <=) can be true under SQLite's rules.
// A null bound is absent. Comparing with SQL NULL matches nothing: no ranges.
std::vector<std::pair<std::string, std::string>> value_ranges(sqlite3_value* lower,
                                                              sqlite3_value* upper);

}  // namespace datalog::ext
