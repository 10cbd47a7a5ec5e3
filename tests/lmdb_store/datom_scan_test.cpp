// DatomScan (lmdb_store/datom_scan.h): index order, key ranges, the largest keys, giants in
// ranges, and repositioning inside a write transaction that changes under the scan.
#include "lmdb_store/datom_scan.h"

#include <catch2/catch.hpp>
#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "lmdb_store/graph_access.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr auto kTimeout = std::chrono::milliseconds(5'000);
constexpr EntityId kMax = std::numeric_limits<EntityId>::max();
constexpr EntityId kA = 70;
constexpr EntityId kB = 71;

Datom fact(EntityId e, EntityId a, Value v, std::uint64_t tx = 0) {
  return Datom{e, a, std::move(v), tx, Op::Assert, 0, kForever};
}

std::string key_of(EntityId a) {
  std::string k;
  put_ordered_int(k, a);
  return k;
}

std::string key_of(EntityId a, const Value& v) {
  std::string k = key_of(a);
  encode_value(k, v);
  return k;
}

TEST_CASE("scan: the largest possible keys are read once and the scan ends", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("bounds.graph"));
  // e, a and the referenced entity all INT64_MAX: the vaet key is 24 bytes of 0xFF.
  const std::vector<Datom> facts = {fact(kMax, kMax, Value::ref(kMax), 1),
                                    fact(1, kMax, Value::ref(kMax), 1),
                                    fact(kMax, kMax, Value::ref(1), 1)};
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  for (IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
    INFO(index_name(index));
    CHECK(as_sorted_text(scan_all(*env, r.txn(), index, any_time())) == as_sorted_text(facts));
  }
  CHECK(scan_prefix(*env, r.txn(), IndexId::Vaet, key_of(kMax), any_time()).size() == 2);
  CHECK(scan_prefix(*env, r.txn(), IndexId::Eavt, key_of(kMax), any_time()).size() == 2);
}

TEST_CASE("scan: results come in index order", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("order.graph"));
  std::vector<Datom> facts;
  const std::vector<Value> values = {Value::string("b"),   Value::string(""),    Value::integer(-3),
                                     Value::integer(9),    Value::floating(0.5), Value::ref(2),
                                     Value::keyword(":z"), Value::nil()};
  for (EntityId e : {5, -1, 3}) {
    for (EntityId a : {kB, kA}) {
      for (const Value& v : values) facts.push_back(fact(e, a, v, 1));
    }
  }
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  auto in_order = [](const std::vector<Datom>& got, auto key) {
    for (std::size_t i = 1; i < got.size(); ++i) {
      if (!(key(got[i - 1]) < key(got[i]))) return false;
    }
    return true;
  };
  const auto eavt = scan_all(*env, r.txn(), IndexId::Eavt, any_time());
  const auto aevt = scan_all(*env, r.txn(), IndexId::Aevt, any_time());
  const auto avet = scan_all(*env, r.txn(), IndexId::Avet, any_time());
  const auto vaet = scan_all(*env, r.txn(), IndexId::Vaet, any_time());
  CHECK(eavt.size() == facts.size());
  CHECK(in_order(eavt, [](const Datom& d) { return std::tie(d.e, d.a, d.v); }));
  CHECK(in_order(aevt, [](const Datom& d) { return std::tie(d.a, d.e, d.v); }));
  CHECK(in_order(avet, [](const Datom& d) { return std::tie(d.a, d.v, d.e); }));
  CHECK(vaet.size() == 6);
  CHECK(in_order(vaet, [](const Datom& d) { return std::tie(d.a, d.e); }));
}

TEST_CASE("scan: AVET ranges select values between bounds", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("ranges.graph"));
  std::vector<Datom> facts;
  for (int i = -5; i <= 5; ++i) facts.push_back(fact(100 + i, kA, Value::integer(i)));
  facts.push_back(fact(1, kA, Value::floating(0.0)));
  facts.push_back(fact(2, kA, Value::string("zzz")));
  facts.push_back(fact(3, kB, Value::integer(0)));
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  auto values_in = [&](const std::string& start, const std::string& end) {
    std::vector<Value> out;
    for (const Datom& d : scan(*env, r.txn(), IndexId::Avet, start, end, any_time())) {
      out.push_back(d.v);
    }
    return out;
  };
  auto integers = [](std::initializer_list<std::int64_t> xs) {
    std::vector<Value> out;
    for (std::int64_t x : xs) out.push_back(Value::integer(x));
    return out;
  };
  // -2 <= v < 3
  CHECK(values_in(key_of(kA, Value::integer(-2)), key_of(kA, Value::integer(3))) ==
        integers({-2, -1, 0, 1, 2}));
  // v > 3: from the successor of 3's prefix to the end of the attribute's integers
  CHECK(values_in(prefix_successor(key_of(kA, Value::integer(3))),
                  key_of(kA, Value::floating(-std::numeric_limits<double>::infinity()))) ==
        integers({4, 5}));
  // Every value of the attribute, in value order: strings, integers, floats.
  const auto all = values_in(key_of(kA), prefix_successor(key_of(kA)));
  REQUIRE(all.size() == 13);
  CHECK(all.front() == Value::string("zzz"));
  CHECK(all.back() == Value::floating(0.0));  // the float sorts after every integer
}

TEST_CASE("scan: giants sharing an inline prefix fall in that prefix's range, whole", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("giants.graph"));
  const std::string g224(kInlineLimit, 'g');
  const Value at_limit = Value::string(g224);
  const Value giant1 = Value::string(g224 + "one");
  const Value giant2 = Value::string(g224 + "two, longer");
  const Value other = Value::string(std::string(kInlineLimit - 1, 'g') + "h");
  commit_facts(
      env, {fact(1, kA, at_limit), fact(2, kA, giant1), fact(3, kA, giant2), fact(4, kA, other)});
  ReadSnapshot r(*env);
  // The key prefix of every text starting with those kInlineLimit bytes: no terminator.
  const std::string prefix = key_of(kA) + std::string(1, '\0') + g224;
  const auto got = scan_prefix(*env, r.txn(), IndexId::Avet, prefix, any_time());
  CHECK(as_sorted_text(got) ==
        as_sorted_text({fact(1, kA, at_limit, 1), fact(2, kA, giant1, 1), fact(3, kA, giant2, 1)}));
  REQUIRE_FALSE(got.empty());
  CHECK(got.front().v == at_limit);  // the inline text sorts before its giants
  // An exact giant value selects only itself.
  CHECK(as_sorted_text(scan_prefix(*env, r.txn(), IndexId::Avet, key_of(kA, giant2), any_time())) ==
        as_sorted_text({fact(3, kA, giant2, 1)}));
}

TEST_CASE("scan: reposition after writes continues after the last fact read", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("reposition.graph"));
  std::unique_ptr<WriteTxn> w;
  require_ok(WriteTxn::begin(env, kTimeout, &w));
  const std::uint64_t tx = w->tx();
  for (EntityId e : {1, 3, 5}) require_ok(w->assert_fact(e, kA, Value::integer(e), 0, kForever));

  DatomScan s;
  require_ok(s.start(*env, w->read_txn(), IndexId::Eavt, "", "", any_time()));
  REQUIRE_FALSE(s.at_end());
  CHECK(s.datom().e == 1);

  const std::uint64_t generation = w->generation();
  require_ok(w->assert_fact(0, kA, Value::integer(0), 0, kForever));  // behind the scan
  require_ok(w->assert_fact(4, kA, Value::integer(4), 0, kForever));  // ahead of it
  CHECK(w->generation() != generation);
  require_ok(s.reposition(w->read_txn()));
  CHECK(s.datom().e == 1);  // the current datom stays
  require_ok(s.next());
  REQUIRE_FALSE(s.at_end());
  CHECK(s.datom().e == 3);

  // A savepoint changes the transaction handle; the scan moves to the new one.
  require_ok(w->savepoint(0));
  require_ok(w->assert_fact(6, kA, Value::integer(6), 0, kForever));
  require_ok(s.reposition(w->read_txn()));
  std::vector<EntityId> rest;
  for (require_ok(s.next()); !s.at_end(); require_ok(s.next())) rest.push_back(s.datom().e);
  CHECK(rest == std::vector<EntityId>{4, 5, 6});
  s.close();

  require_ok(w->commit());
  ReadSnapshot r(*env);
  std::vector<Datom> expected;
  for (EntityId e : {0, 1, 3, 4, 5, 6}) expected.push_back(fact(e, kA, Value::integer(e), tx));
  CHECK(as_sorted_text(scan_all(*env, r.txn(), IndexId::Eavt, any_time())) ==
        as_sorted_text(expected));
}

TEST_CASE("scan: outlives the savepoint levels and the transaction it read", "[scan]") {
  TempDir dir;
  auto env = open_graph(dir.file("levels.graph"));
  std::unique_ptr<WriteTxn> w;
  require_ok(WriteTxn::begin(env, kTimeout, &w));
  for (EntityId e : {1, 2, 3, 4, 5, 6}) {
    require_ok(w->assert_fact(e, kA, Value::integer(e), 0, kForever));
  }
  auto next_e = [](DatomScan& s) {
    require_ok(s.next());
    REQUIRE_FALSE(s.at_end());
    return s.datom().e;
  };

  // Read inside a savepoint level, then roll that level back: LMDB ends it and frees the
  // cursors it opened; the scan goes on in the restarted level.
  require_ok(w->savepoint(0));
  require_ok(w->assert_fact(10, kA, Value::integer(10), 0, kForever));
  DatomScan s;
  require_ok(s.start(*env, w->read_txn(), IndexId::Eavt, "", "", any_time()));
  CHECK(s.datom().e == 1);
  require_ok(w->rollback_to(0));
  require_ok(s.reposition(w->read_txn()));
  CHECK(next_e(s) == 2);

  // Read inside a nested level, then release it into its parent.
  require_ok(w->savepoint(1));
  require_ok(s.reposition(w->read_txn()));
  CHECK(next_e(s) == 3);
  require_ok(w->release(1));
  require_ok(s.reposition(w->read_txn()));
  CHECK(next_e(s) == 4);

  // The transaction commits under the scan; it continues on a snapshot of the result.
  require_ok(w->commit());
  ReadSnapshot r(*env);
  require_ok(s.reposition(r.txn()));
  CHECK(next_e(s) == 5);
  CHECK(next_e(s) == 6);
  require_ok(s.next());
  CHECK(s.at_end());  // fact 10 was rolled back
}

TEST_CASE("graph access: scans one after another, and one inside another's callback", "[scan]") {
  // GraphAccess reuses one scan object for consecutive scans; a scan started while it is in use
  // must get its own, and neither may disturb the other.
  TempDir dir;
  auto env = open_graph(dir.file("nested.graph"));
  std::vector<Datom> facts;
  for (EntityId e = 1; e <= 40; ++e) {
    facts.push_back(fact(e, kA, Value::ref(e + 1), 1));
    facts.push_back(fact(e, kB, Value::integer(e * 10), 1));
  }
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  GraphAccess access(*env, r.txn());
  const TimeView now{};
  std::vector<std::string> pairs;
  DatomFilter edges;
  edges.a = kA;
  require_ok(access.scan(edges, now, [&](const Datom& edge) {
    DatomFilter of_target;
    of_target.e = edge.v.as_ref();
    of_target.a = kB;
    require_ok(access.scan(of_target, now, [&](const Datom& d) {
      pairs.push_back(std::to_string(edge.e) + "->" + std::to_string(d.v.as_integer()));
      return true;
    }));
    return true;
  }));
  std::vector<std::string> expected;
  for (EntityId e = 1; e <= 39; ++e) expected.push_back(std::to_string(e) + "->" + std::to_string((e + 1) * 10));
  CHECK(pairs == expected);
  // Consecutive point scans, as a closure walk makes: each sees only its own entity.
  for (EntityId e : {7, 3, 40, 41, 1}) {
    DatomFilter one;
    one.e = e;
    one.a = kB;
    std::vector<std::int64_t> seen;
    require_ok(access.scan(one, now, [&](const Datom& d) {
      seen.push_back(d.v.as_integer());
      return true;
    }));
    CHECK(seen == (e <= 40 ? std::vector<std::int64_t>{e * 10} : std::vector<std::int64_t>{}));
  }
}

TEST_CASE("graph access: a scan whose reader ignores values finds the same facts", "[scan]") {
  // values_unused lets an EAVT or AEVT scan skip decoding values (and fetching giant ones); the
  // facts found, their order and everything but the value stay the same. A filter that needs the
  // value (AVET: a value and an entity) decodes it regardless.
  TempDir dir;
  auto env = open_graph(dir.file("unused.graph"));
  std::vector<Datom> facts;
  const std::string giant(3 * kInlineLimit, 'g');
  for (EntityId e = 1; e <= 30; ++e) {
    facts.push_back(fact(e, kA, e % 3 == 0 ? Value::string(giant + std::to_string(e)) : Value::integer(e), 1));
  }
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  GraphAccess access(*env, r.txn());
  auto scan = [&](DatomFilter f) {
    std::vector<std::string> seen;
    require_ok(access.scan(f, TimeView{}, [&](const Datom& d) {
      seen.push_back(std::to_string(d.e) + " " + std::to_string(d.a) + " " + d.v.to_edn().substr(0, 12));
      return true;
    }));
    return seen;
  };
  DatomFilter by_attribute;
  by_attribute.a = kA;
  DatomFilter ignoring = by_attribute;
  ignoring.values_unused = true;
  const auto full = scan(by_attribute), bare = scan(ignoring);
  REQUIRE(full.size() == 30);
  REQUIRE(bare.size() == 30);
  for (std::size_t i = 0; i < full.size(); ++i) {
    CHECK(bare[i] == full[i].substr(0, full[i].rfind(' ')) + " nil");
  }
  DatomFilter by_entity;
  by_entity.e = 6;
  by_entity.values_unused = true;
  CHECK(scan(by_entity) == std::vector<std::string>{"6 " + std::to_string(kA) + " nil"});
  DatomFilter by_value;
  by_value.a = kA;
  by_value.v = Value::integer(7);
  by_value.values_unused = true;  // ignored: the scan must compare values
  CHECK(scan(by_value) == std::vector<std::string>{"7 " + std::to_string(kA) + " 7"});
}

TEST_CASE("graph access: a scan in value order finds the facts of entity order", "[scan]") {
  // value_order reads AVET, where runs of one value share a decoded copy (ValueMemo): texts that
  // differ only in kind (a string and a keyword), giants, and values that change must all come
  // back as they are.
  TempDir dir;
  auto env = open_graph(dir.file("value_order.graph"));
  std::vector<Datom> facts;
  const std::string giant(2 * kInlineLimit, 'g');
  for (EntityId e = 1; e <= 60; ++e) {
    Value v;
    switch (e % 4) {
      case 0: v = Value::keyword(":d" + std::to_string(e % 3)); break;
      case 1: v = Value::string(":d" + std::to_string(e % 3)); break;
      case 2: v = Value::string(giant + std::to_string(e % 2)); break;
      default: v = Value::integer(e % 5); break;
    }
    facts.push_back(fact(e, kA, v, 1));
  }
  commit_facts(env, facts);
  ReadSnapshot r(*env);
  GraphAccess access(*env, r.txn());
  auto scan = [&](bool value_order, std::vector<Value>* values) {
    DatomFilter f;
    f.a = kA;
    f.value_order = value_order;
    std::vector<std::string> seen;
    require_ok(access.scan(f, TimeView{}, [&](const Datom& d) {
      seen.push_back(std::to_string(d.e) + " " + d.v.to_edn());
      if (values) values->push_back(d.v);
      return true;
    }));
    return seen;
  };
  std::vector<Value> in_order;
  std::vector<std::string> by_value = scan(true, &in_order), by_entity = scan(false, nullptr);
  CHECK(by_value.size() == 60);
  // Values come in order (giants aside: those sharing an inline prefix sort by hash).
  std::erase_if(in_order, [](const Value& v) { return v.is(ValueKind::String) && v.as_string().size() > kInlineLimit; });
  CHECK(in_order.size() == 45);
  CHECK(std::is_sorted(in_order.begin(), in_order.end()));
  std::sort(by_value.begin(), by_value.end());
  std::sort(by_entity.begin(), by_entity.end());
  CHECK(by_value == by_entity);
}

}  // namespace

TEST_CASE("graph access: a transaction number that comes back with another time reads the new time",
          "[scan]") {
  // Readers keep transaction times across queries (read_cache.h). A rebuilt index numbers its
  // transactions from 1 again, with later times: a time kept for the old state must not answer.
  TempDir dir;
  auto env = open_graph(dir.file("times.graph"));
  auto valid_from_seen = [&] {
    ReadSnapshot r(*env);
    GraphAccess access(*env, r.txn());
    DatomFilter by_entity;
    by_entity.e = 1;
    std::vector<std::int64_t> seen;
    require_ok(access.scan(by_entity, any_time(), [&](const Datom& d) {
      seen.push_back(d.valid_from);
      return true;
    }));
    return seen;
  };
  std::unique_ptr<WriteTxn> first = begin_write(env);
  const std::int64_t first_time = first->tx_time_ms();
  require_ok(first->assert_fact(1, kA, Value::integer(10), first_time, kForever));
  require_ok(first->commit());
  REQUIRE(valid_from_seen() == std::vector<std::int64_t>{first_time});
  REQUIRE(valid_from_seen() == std::vector<std::int64_t>{first_time});  // now from the cache

  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::unique_ptr<WriteTxn> again = begin_write(env);
  require_ok(again->clear_index());
  const std::int64_t again_time = again->tx_time_ms();
  REQUIRE(again->tx() == 1);
  REQUIRE(again_time > first_time);
  require_ok(again->assert_fact(1, kA, Value::integer(10), again_time, kForever));
  require_ok(again->commit());
  CHECK(valid_from_seen() == std::vector<std::int64_t>{again_time});
}

TEST_CASE("graph access: estimates follow the committed state a snapshot reads", "[scan]") {
  // Readers keep their scan plans per thread and committed state (plan_memo.h): a snapshot of the
  // same state may reuse them, one of a later state must not, and an older snapshot still open
  // beside a newer one keeps its own.
  TempDir dir;
  auto env = open_graph(dir.file("estimates.graph"));
  std::vector<Datom> facts;
  for (EntityId e = 1; e <= 10; ++e) facts.push_back(fact(e, kA, Value::integer(e), 1));
  commit_facts(env, facts);
  DatomFilter by_attribute;
  by_attribute.a = kA;
  auto estimate_now = [&]() {
    ReadSnapshot r(*env);
    GraphAccess access(*env, r.txn());
    return access.estimate(by_attribute);
  };
  const double ten = estimate_now();
  CHECK(ten == estimate_now());
  ReadSnapshot older(*env);
  facts.clear();
  for (EntityId e = 11; e <= 1000; ++e) facts.push_back(fact(e, kA, Value::integer(e), 2));
  commit_facts(env, facts);
  const double thousand = estimate_now();
  INFO("10 facts: " << ten << ", 1000 facts: " << thousand);
  CHECK(thousand > 50 * ten);
  GraphAccess old_access(*env, older.txn());
  CHECK(old_access.estimate(by_attribute) == ten);
  CHECK(estimate_now() == thousand);
}

}  // namespace datalog::store::testing
