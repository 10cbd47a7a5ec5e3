// The writer's deferred index records (WriteTxn::write_deferred): AEVT, AVET and VAET records wait
// to go in sorted, yet every read through the writer sees them, a rolled-back savepoint drops them,
// a cancelled reassertion deletes them, and a transaction larger than the deferral bound (so
// written in several sorted runs) leaves the four indexes agreeing record for record.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kName = 20, kFriend = 21;

// Every index as the writer sees it, as sorted datom texts (VAET only holds the refs).
struct Seen {
  std::vector<std::string> eavt, aevt, avet, vaet;
};
Seen seen(const GraphEnv& env, MDB_txn* txn) {
  return {as_sorted_text(scan_all(env, txn, IndexId::Eavt, any_time())),
          as_sorted_text(scan_all(env, txn, IndexId::Aevt, any_time())),
          as_sorted_text(scan_all(env, txn, IndexId::Avet, any_time())),
          as_sorted_text(scan_all(env, txn, IndexId::Vaet, any_time()))};
}

std::vector<std::string> refs_of(const std::vector<Datom>& datoms) {
  std::vector<Datom> refs;
  for (const Datom& d : datoms) {
    if (d.v.is(ValueKind::Ref)) refs.push_back(d);
  }
  return as_sorted_text(refs);
}

void check_all_agree(const Seen& s, const std::vector<Datom>& expected) {
  const std::vector<std::string> all = as_sorted_text(expected);
  CHECK(s.eavt == all);
  CHECK(s.aevt == all);
  CHECK(s.avet == all);
  CHECK(s.vaet == refs_of(expected));
}

TEST_CASE("deferred writes: the writer reads its own records in every index, savepoints included",
          "[deferred]") {
  TempDir dir;
  auto env = open_graph(dir.file("deferred.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  require_ok(w->assert_fact(1, kName, Value::string("one"), 0, kForever));
  require_ok(w->assert_fact(1, kFriend, Value::ref(2), 0, kForever));
  const Datom one{1, kName, Value::string("one"), tx, Op::Assert, 0, kForever};
  const Datom link{1, kFriend, Value::ref(2), tx, Op::Assert, 0, kForever};
  check_all_agree(seen(*env, w->read_txn()), {one, link});

  require_ok(w->savepoint(0));
  require_ok(w->assert_fact(2, kFriend, Value::ref(1), 0, kForever));
  require_ok(w->rollback_to(0));  // before any read: the records were still waiting
  check_all_agree(seen(*env, w->read_txn()), {one, link});

  // Retract and assert again in one transaction: the reassertion is cancelled, its records
  // deleted from every index even while they wait.
  require_ok(w->release(0));
  require_ok(w->assert_fact(3, kFriend, Value::ref(1), 0, kForever));
  require_ok(w->retract_fact(3, kFriend, Value::ref(1)));
  require_ok(w->commit());

  ReadSnapshot r(*env);
  const Seen after = seen(*env, r.txn());
  CHECK(after.aevt == after.eavt);
  CHECK(after.avet == after.eavt);
  CHECK(after.vaet == refs_of(scan_all(*env, r.txn(), IndexId::Eavt, any_time())));
}

TEST_CASE("deferred writes: a transaction past the deferral bound goes in as several sorted runs",
          "[deferred]") {
  TempDir dir;
  auto env = open_graph(dir.file("large.graph"));
  constexpr int kFacts = 40'000;
  auto w = begin_write(env);
  w->set_deferral_bound(256 << 10);  // about 100 runs
  const std::uint64_t tx = w->tx();
  std::vector<Datom> expected;
  for (int i = 0; i < kFacts; ++i) {
    // Entities in a scattered order, so each run interleaves with the ones before it.
    const EntityId e = (static_cast<EntityId>(i) * 7919) % kFacts;  // 7919: prime, no factor of kFacts
    const Value v = i % 3 == 0 ? Value::ref((e * 31) % kFacts)
                               : Value::string("value " + std::to_string(e) + std::string(20, '.'));
    require_ok(w->assert_fact(e, i % 3 == 0 ? kFriend : kName, v, 0, kForever));
    expected.push_back(Datom{e, i % 3 == 0 ? kFriend : kName, v, tx, Op::Assert, 0, kForever});
  }
  require_ok(w->commit());
  ReadSnapshot r(*env);
  check_all_agree(seen(*env, r.txn()), expected);
  GraphStats g;
  require_ok(read_graph_stats(r.txn(), env->tables(), &g));
  CHECK(g.records == static_cast<std::uint64_t>(kFacts));
  AttributeStats names, friends;
  require_ok(read_attribute_stats(r.txn(), env->tables(), kName, &names));
  require_ok(read_attribute_stats(r.txn(), env->tables(), kFriend, &friends));
  CHECK(names.records + friends.records == static_cast<std::uint64_t>(kFacts));
  CHECK(names.entities == names.records);  // each entity has one value of one attribute
  CHECK(friends.values == friends.records);
}

}  // namespace
}  // namespace datalog::store::testing
