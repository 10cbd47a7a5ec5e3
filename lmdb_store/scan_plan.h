// lmdb_store/scan_plan.h: which index answers a scan, what it costs, and its key ranges — the
// one chooser and the one cost model, for the engine's reads (GraphAccess) and the SQL store
// table's (xBestIndex and xFilter) alike.
//
// Index choice, among the indexes the fixed parts allow, in this order: entity -> EAVT;
// attribute and value, or a value range -> AVET; attribute -> AEVT, or AVET for value order; a
// reference value -> VAET; always a full EAVT scan. Two policies over one cost model (about
// log2(N) per seek plus the rows read, from the graph's statistics, and the attribute's when it
// is known):
// - Narrowest: the first index in that order that the fixed parts allow, using every fixed part
//   it can (the engine's scans, whose values are known: the narrowest key range);
// - Cheapest: the cheapest (xBestIndex, choosing which usable constraints to use); on a tie the
//   earlier in that order wins.
//
// Row estimates, per index and for the datoms that match (the most selective fixed part first):
// entity -> records per entity; entity and attribute -> a quarter of that; entity, attribute and
// value -> 1; attribute and value -> the attribute's records per distinct value; attribute and a
// value range -> a third of the attribute's records (the classic default selectivity of an
// inequality, without histograms); attribute -> its records; reference value -> records per
// entity; nothing -> every record.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/storage.h"
#include "engine/value.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_stats.h"

namespace datalog::store {

enum class ScanIndex : int { Full = 0, Eavt = 1, Aevt = 2, Avet = 3, Vaet = 4 };
const char* scan_index_name(ScanIndex index);  // "scan", "eavt", ...
IndexId index_of(ScanIndex index);             // the LMDB table it reads (Full: EAVT)

// The parts of a scan that are fixed (when planning, their values may not be known yet).
struct ScanShape {
  bool e = false, a = false;
  bool v = false;            // equal to a value (or one of a few candidates)
  bool v_is_ref = false;     // ... known to be a reference: VAET can answer
  bool v_range = false;      // values in ranges (of one attribute)
  bool value_order = false;  // with only the attribute: rather in value order (AVET)
};

struct ScanPlan {
  ScanIndex index = ScanIndex::Full;
  ScanShape use;  // the fixed parts the index's key ranges cover; the others are filtered
  double rows = 0, cost = 0;  // the records the key ranges hold, and the cost of reading them
  double matches = 0;         // the datoms expected to match every fixed part
};

enum class ScanChoice { Narrowest, Cheapest };

// attribute: the fixed attribute's statistics, when known (else the graph's averages).
ScanPlan plan_scan(const ScanShape& fixed, const GraphStats& graph,
                   const AttributeStats* attribute = nullptr,
                   ScanChoice choice = ScanChoice::Narrowest);

// [from, to) of one index; an empty `to` runs to the end.
struct KeyRange {
  std::string from, to;
};

// The values a plan's key ranges take: entity and attribute ids, candidate values (a scan of
// value v is a scan of each), and value ranges as encoded-value key ranges (value_key_range,
// or sql_value_ranges in sql_ordering.h).
struct ScanKeys {
  std::optional<EntityId> e, a;
  std::vector<Value> values;
  std::vector<KeyRange> value_ranges;
};

// The key ranges that hold every datom the plan's used parts allow, in index order, into *out
// (replacing its contents; a scan started again and again keeps the vector's room).
void scan_key_ranges(const ScanPlan& plan, const ScanKeys& keys, std::vector<KeyRange>* out);

// The encoded values of [low, high] (both included), as a key range without prefix.
KeyRange value_key_range(const ValueRange& range);

}  // namespace datalog::store
