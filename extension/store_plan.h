// extension/store_plan.h: how the store table answers a WHERE clause (xBestIndex and xFilter).
//
// SQLite's usable constraints become a store::ScanShape, and the store's planner
// (lmdb_store/scan_plan.h, the same chooser and cost model the engine's reads use) picks the
// index and the constraints it uses. This file only encodes that choice for xFilter and turns
// SQL values into what the store takes.
//
// Plan encoding (what xBestIndex hands to xFilter):
//   idxNum = the store::ScanIndex; idxStr = "<index> <codes>", one code per xFilter argument,
//   in order:
//     e  entity =        a  attribute =      v  value =          t  vtype =
//     >  value >, >=     <  value <, <=      o  as_of =          w  valid_at =
//   e.g. "eavt ea" (entity and attribute prefix of EAVT), "avet a><" (a value range in AVET).
// Constraints are never omitted except as_of / valid_at (the table reproduces them exactly):
// SQLite re-checks the rest, so key ranges only need to cover every row that can match.
#pragma once

#include <string>

#include "extension/sqlite_api.h"
#include "lmdb_store/scan_plan.h"
#include "lmdb_store/sql_ordering.h"

namespace datalog::ext {

struct UsableConstraints {
  bool e = false, a = false, v = false, vtype = false, lower = false, upper = false;
};

struct StorePlan {
  store::ScanPlan scan;
  UsableConstraints use;  // which constraints become xFilter arguments
};

StorePlan choose_store_plan(const UsableConstraints& usable, const store::GraphStats& stats);

// The plan xFilter runs: the index of idxNum, using what the codes of idxStr pass.
store::ScanPlan plan_of_filter(int idx_num, const char* codes);

// A comparison bound as the store takes it (it refers to v's text or blob, which must live on).
store::SqlBound sql_bound(sqlite3_value* v);

}  // namespace datalog::ext
