// Savepoints (WriteTxn::savepoint / release / rollback_to): a rollback discards exactly what
// was written since the savepoint — index records, the log and statistics — and a release keeps
// it, at every nesting level.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kA = 20;

Datom fact(EntityId e, std::uint64_t tx, std::int64_t vf = 0) {
  return Datom{e, kA, Value::integer(e * 10), tx, Op::Assert, vf, kForever};
}

// Writes fact(e) in w.
void put(WriteTxn& w, EntityId e, std::int64_t vf = 0) {
  require_ok(w.assert_fact(e, kA, Value::integer(e * 10), vf, kForever));
}

// What the writer itself sees.
std::vector<std::string> seen_by(const GraphEnv& env, WriteTxn& w) {
  return as_sorted_text(scan_all(env, w.read_txn(), IndexId::Eavt, any_time()));
}

std::vector<std::string> expected(const std::vector<Datom>& datoms) {
  return as_sorted_text(datoms);
}

std::vector<std::string> logged(GraphEnv& env, std::uint64_t tx) {
  ReadSnapshot r(env);
  std::vector<Datom> out;
  require_ok(read_tx_datoms(r.txn(), env.tables(), tx, &out));
  return as_text(out);
}

TEST_CASE("savepoints: rollback_to discards what was written since, release keeps it",
          "[savepoints]") {
  TempDir dir;
  auto env = open_graph(dir.file("savepoints.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  put(*w, 1);
  require_ok(w->savepoint(0));
  put(*w, 2);
  CHECK(seen_by(*env, *w) == expected({fact(1, tx), fact(2, tx)}));
  require_ok(w->rollback_to(0));
  CHECK(seen_by(*env, *w) == expected({fact(1, tx)}));
  put(*w, 3);  // the savepoint is still open after a rollback to it
  require_ok(w->rollback_to(0));
  CHECK(seen_by(*env, *w) == expected({fact(1, tx)}));
  put(*w, 4);
  require_ok(w->release(0));
  CHECK(seen_by(*env, *w) == expected({fact(1, tx), fact(4, tx)}));
  require_ok(w->rollback_to(0));  // nothing open any more: no effect
  CHECK(seen_by(*env, *w) == expected({fact(1, tx), fact(4, tx)}));
  require_ok(w->commit());

  CHECK(committed_datoms(*env) == expected({fact(1, tx), fact(4, tx)}));
  CHECK(logged(*env, tx) == as_text({fact(1, tx), fact(4, tx)}));
}

TEST_CASE("savepoints: nested levels", "[savepoints]") {
  TempDir dir;
  auto env = open_graph(dir.file("nested.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  put(*w, 1);
  require_ok(w->savepoint(0));
  put(*w, 2);
  require_ok(w->savepoint(1));
  put(*w, 3);
  require_ok(w->savepoint(2));
  put(*w, 4);
  require_ok(w->savepoint(2));  // already open: no new level
  put(*w, 5);

  // Rolling back to level 1 drops levels 2 and 1's writes, keeps level 0's.
  require_ok(w->rollback_to(1));
  CHECK(seen_by(*env, *w) == expected({fact(1, tx), fact(2, tx)}));
  put(*w, 6);
  require_ok(w->savepoint(2));
  put(*w, 7);
  require_ok(w->release(2));  // 7 joins level 1
  require_ok(w->rollback_to(1));
  CHECK(seen_by(*env, *w) == expected({fact(1, tx), fact(2, tx)}));
  put(*w, 8);
  require_ok(w->release(1));  // 8 joins level 0
  put(*w, 9);
  require_ok(w->savepoint(1));
  put(*w, 10);
  require_ok(w->rollback_to(0));  // drops 2, 8, 9 and 10
  CHECK(seen_by(*env, *w) == expected({fact(1, tx)}));
  put(*w, 11);
  require_ok(w->savepoint(1));
  put(*w, 12);
  require_ok(w->commit());  // open savepoints fold into the commit

  const std::vector<Datom> kept = {fact(1, tx), fact(11, tx), fact(12, tx)};
  CHECK(committed_datoms(*env) == expected(kept));
  CHECK(logged(*env, tx) == as_text(kept));
  ReadSnapshot r(*env);
  std::optional<TxInfo> info;
  require_ok(read_tx_info(r.txn(), env->tables(), tx, &info));
  REQUIRE(info.has_value());
  CHECK(info->datoms == kept.size());
  GraphStats g;
  require_ok(read_graph_stats(r.txn(), env->tables(), &g));
  CHECK(g.records == kept.size());
  CHECK(g.entities == kept.size());
  AttributeStats s;
  require_ok(read_attribute_stats(r.txn(), env->tables(), kA, &s));
  CHECK(s.records == kept.size());
  CHECK(s.entities == kept.size());
  CHECK(s.values == kept.size());
}

TEST_CASE("savepoints: rolling back a retraction and an overwrite restores them", "[savepoints]") {
  TempDir dir;
  auto env = open_graph(dir.file("retract.graph"));
  const std::uint64_t first = commit_facts(env, {fact(1, 0)});
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  put(*w, 2);
  require_ok(w->savepoint(0));
  require_ok(w->retract_fact(1, kA, Value::integer(10)));
  // The same record again with a new valid_to replaces it (valid_to is not part of the key).
  require_ok(w->assert_fact(2, kA, Value::integer(20), 0, 1234));
  CHECK(seen_by(*env, *w).size() == 1);  // fact 1 retracted, fact 2 ends at 1234
  require_ok(w->rollback_to(0));
  CHECK(seen_by(*env, *w) == expected({fact(1, first), fact(2, tx)}));
  require_ok(w->commit());
  CHECK(committed_datoms(*env) == expected({fact(1, first), fact(2, tx)}));
  CHECK(logged(*env, tx) == as_text({fact(2, tx)}));
}

TEST_CASE("savepoints: a rollback across log chunks keeps only the log written before",
          "[savepoints][log]") {
  TempDir dir;
  auto env = open_graph(dir.file("chunks.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  std::vector<Datom> kept;
  const std::string pad(80, '#');
  auto put_text = [&](EntityId e, bool keep) {
    const Value v = Value::string(std::to_string(e) + pad);
    require_ok(w->assert_fact(e, kA, v, 0, kForever));
    if (keep) kept.push_back(Datom{e, kA, v, tx, Op::Assert, 0, kForever});
  };
  for (EntityId e = 0; e < 1000; ++e) put_text(e, true);  // past one 64 KiB log chunk
  require_ok(w->savepoint(0));
  for (EntityId e = 1000; e < 3000; ++e) put_text(e, false);  // several chunks, dropped
  require_ok(w->rollback_to(0));
  for (EntityId e = 3000; e < 3010; ++e) put_text(e, true);
  require_ok(w->commit());
  CHECK(logged(*env, tx) == as_text(kept));
  CHECK(committed_datoms(*env) == as_sorted_text(kept));
}

}  // namespace
}  // namespace datalog::store::testing
