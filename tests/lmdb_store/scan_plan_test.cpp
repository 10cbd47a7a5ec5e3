// plan_scan and scan_key_ranges (lmdb_store/scan_plan.h): the index each policy picks, the row
// estimates, and the key ranges; sql_value_ranges (lmdb_store/sql_ordering.h): which kinds SQL's
// comparisons reach.
#include "lmdb_store/scan_plan.h"

#include <catch2/catch.hpp>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/sql_ordering.h"

namespace datalog::store::testing {
namespace {

GraphStats graph(std::uint64_t records, std::uint64_t entities, std::uint64_t attributes) {
  GraphStats g;
  g.records = records;
  g.entities = entities;
  g.attributes = attributes;
  return g;
}

ScanShape shape(bool e, bool a, bool v, bool ref = false, bool range = false) {
  ScanShape s;
  s.e = e;
  s.a = a;
  s.v = v;
  s.v_is_ref = ref;
  s.v_range = range;
  return s;
}

std::string id_bytes(EntityId id) {
  std::string s;
  put_ordered_int(s, id);
  return s;
}

TEST_CASE("plan_scan Narrowest: the first index the fixed parts allow, with every part it can use") {
  const GraphStats g = graph(1'000'000, 100'000, 10);
  CHECK(plan_scan(shape(true, true, true), g).index == ScanIndex::Eavt);
  CHECK(plan_scan(shape(true, true, true), g).use.v);
  CHECK(plan_scan(shape(true, false, true, true), g).index == ScanIndex::Eavt);
  CHECK_FALSE(plan_scan(shape(true, false, true, true), g).use.v);  // EAVT needs a before v
  CHECK(plan_scan(shape(false, true, true), g).index == ScanIndex::Avet);
  CHECK(plan_scan(shape(false, true, false, false, true), g).index == ScanIndex::Avet);
  CHECK(plan_scan(shape(false, true, false), g).index == ScanIndex::Aevt);
  ScanShape ordered = shape(false, true, false);
  ordered.value_order = true;
  CHECK(plan_scan(ordered, g).index == ScanIndex::Avet);
  CHECK(plan_scan(shape(false, false, true, true), g).index == ScanIndex::Vaet);
  CHECK(plan_scan(shape(false, false, true, false), g).index == ScanIndex::Full);
  CHECK(plan_scan(shape(false, false, false), g).index == ScanIndex::Full);
}

TEST_CASE("plan_scan estimates the matching datoms from the graph's and the attribute's statistics") {
  const GraphStats g = graph(1'000'000, 100'000, 10);  // 10 records per entity
  CHECK(plan_scan(shape(true, false, false), g).matches == Approx(10));
  CHECK(plan_scan(shape(true, true, false), g).matches == Approx(2.5));
  CHECK(plan_scan(shape(true, true, true), g).matches == Approx(1));
  AttributeStats a;
  a.records = 3000;
  a.values = 30;
  CHECK(plan_scan(shape(false, true, true), g, &a).matches == Approx(100));
  CHECK(plan_scan(shape(false, true, false, false, true), g, &a).matches == Approx(1000));
  CHECK(plan_scan(shape(false, true, false), g, &a).matches == Approx(3000));
  CHECK(plan_scan(shape(false, false, false), g).matches == Approx(1'000'000));
  // An empty graph still estimates one row, never zero.
  CHECK(plan_scan(shape(true, true, true), GraphStats{}).matches == Approx(1));
}

TEST_CASE("plan_scan Cheapest: chooses what to use by cost") {
  const GraphStats g = graph(1'000'000, 100'000, 10);
  // Entity, attribute and value: EAVT on all three (one row).
  ScanPlan p = plan_scan(shape(true, true, true), g, nullptr, ScanChoice::Cheapest);
  CHECK(p.index == ScanIndex::Eavt);
  CHECK(p.use.v);
  // A reference value alone: VAET beats a full scan.
  p = plan_scan(shape(false, false, true, true), g, nullptr, ScanChoice::Cheapest);
  CHECK(p.index == ScanIndex::Vaet);
  // Nothing usable: the full scan, costed above its rows.
  p = plan_scan(shape(false, false, false), g, nullptr, ScanChoice::Cheapest);
  CHECK(p.index == ScanIndex::Full);
  CHECK(p.cost > 1'000'000);
  // A value range of an attribute: AVET, over reading the whole attribute in AEVT.
  p = plan_scan(shape(false, true, false, false, true), g, nullptr, ScanChoice::Cheapest);
  CHECK(p.index == ScanIndex::Avet);
  CHECK(p.use.v_range);
}

TEST_CASE(
    "scan_key_ranges: prefixes per index, one range per candidate value, replacing the last") {
  ScanKeys keys;
  keys.e = 7;
  keys.a = 9;
  keys.values = {Value::integer(1), Value::string("x")};
  ScanPlan p;
  p.index = ScanIndex::Eavt;
  p.use.e = p.use.a = p.use.v = true;
  std::vector<KeyRange> ranges;
  scan_key_ranges(p, keys, &ranges);
  REQUIRE(ranges.size() == 2);
  std::string first = id_bytes(7) + id_bytes(9);
  encode_value(first, Value::integer(1));
  CHECK(ranges[0].from == first);
  CHECK(ranges[0].to == prefix_successor(first));

  p.use.v = false;
  scan_key_ranges(p, keys, &ranges);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].from == id_bytes(7) + id_bytes(9));

  p = ScanPlan{};
  p.index = ScanIndex::Vaet;
  p.use.v = p.use.v_is_ref = true;
  keys.values = {Value::ref(5), Value::integer(5)};  // only the reference is in VAET
  scan_key_ranges(p, keys, &ranges);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].from == id_bytes(5));

  p = ScanPlan{};
  scan_key_ranges(p, keys, &ranges);
  REQUIRE(ranges.size() == 1);
  CHECK(ranges[0].from.empty());
  CHECK(ranges[0].to.empty());
}

TEST_CASE("sql_value_ranges: the kinds of the bound's class narrowed, classes between whole") {
  SqlBound five;
  five.type = SqlBound::Class::Integer;
  five.integer = 5;
  five.real = 5.0;
  // v > 5: integers from 5 (SQLite re-checks), floats from 5.0, and every text, keyword, ref...
  const auto above = sql_value_ranges(&five, nullptr);
  REQUIRE_FALSE(above.empty());
  std::string integer_from;
  encode_value(integer_from, Value::integer(5));
  bool integers_narrowed = false;
  for (const KeyRange& r : above) integers_narrowed |= r.from == integer_from;
  CHECK(integers_narrowed);
  // A NULL bound matches nothing.
  SqlBound null;
  CHECK(sql_value_ranges(&null, nullptr).empty());
  CHECK(sql_value_ranges(nullptr, &null).empty());
  // Ranges come in key order and never overlap.
  for (std::size_t i = 1; i < above.size(); ++i) CHECK_FALSE(above[i].from < above[i - 1].to);
}

}  // namespace
}  // namespace datalog::store::testing
