// Retractions that change no view are not stored (write_txn.cpp, retract_fact), yet every view
// reads as if they were, and they still consume the transaction counter.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kE = 1;
constexpr EntityId kA = 10;

std::size_t eavt_records(GraphEnv& env) {
  ReadSnapshot r(env);
  MDB_stat s{};
  REQUIRE(mdb_stat(r.txn(), env.tables().eavt, &s) == MDB_SUCCESS);
  return s.ms_entries;
}

std::uint64_t last_tx(GraphEnv& env) {
  ReadSnapshot r(env);
  GraphStats g;
  require_ok(read_graph_stats(r.txn(), env.tables(), &g));
  return g.last_tx;
}

std::size_t logged(GraphEnv& env, std::uint64_t tx) {
  ReadSnapshot r(env);
  std::vector<Datom> out;
  require_ok(read_tx_datoms(r.txn(), env.tables(), tx, &out));
  std::optional<TxInfo> info;
  require_ok(read_tx_info(r.txn(), env.tables(), tx, &info));
  REQUIRE(info.has_value());
  CHECK(info->datoms == out.size());
  return out.size();
}

// The transactions in which (kE, kA, 7) is visible, for as-of 1 .. last_tx.
std::vector<std::uint64_t> visible_as_of(GraphEnv& env) {
  std::vector<std::uint64_t> out;
  ReadSnapshot r(env);
  for (std::uint64_t tx = 1; tx <= last_tx(env); ++tx) {
    if (!scan_all(env, r.txn(), IndexId::Eavt, any_time(tx)).empty()) out.push_back(tx);
  }
  return out;
}

void one_write(const std::shared_ptr<GraphEnv>& env, bool assert_it) {
  auto w = begin_write(env);
  require_ok(assert_it ? w->assert_fact(kE, kA, Value::integer(7), 0, kForever)
                       : w->retract_fact(kE, kA, Value::integer(7)));
  require_ok(w->commit());
}

TEST_CASE("retract: retracting a retracted or never-asserted fact stores nothing",
          "[retract]") {
  TempDir dir;
  auto env = open_graph(dir.file("retract.graph"));

  one_write(env, false);  // never asserted: tx 1, nothing stored
  CHECK(last_tx(*env) == 1);
  CHECK(eavt_records(*env) == 0);
  CHECK(logged(*env, 1) == 0);

  one_write(env, true);   // tx 2
  one_write(env, false);  // tx 3: stored
  one_write(env, false);  // tx 4: already retracted
  one_write(env, false);  // tx 5
  CHECK(last_tx(*env) == 5);
  CHECK(eavt_records(*env) == 2);
  CHECK(logged(*env, 3) == 1);
  CHECK(logged(*env, 4) == 0);
  CHECK(visible_as_of(*env) == std::vector<std::uint64_t>{2});

  one_write(env, true);   // tx 6: a later assertion survives
  one_write(env, false);  // tx 7: stored again
  CHECK(eavt_records(*env) == 4);
  CHECK(visible_as_of(*env) == std::vector<std::uint64_t>{2, 6});
}

TEST_CASE("retract: within one transaction, only retractions that cancel something are stored",
          "[retract]") {
  TempDir dir;
  auto env = open_graph(dir.file("retract.graph"));
  {  // assert, retract, retract: the second changes nothing
    auto w = begin_write(env);
    require_ok(w->assert_fact(kE, kA, Value::integer(7), 0, kForever));
    require_ok(w->retract_fact(kE, kA, Value::integer(7)));
    require_ok(w->retract_fact(kE, kA, Value::integer(7)));
    require_ok(w->commit());
  }
  CHECK(eavt_records(*env) == 2);
  CHECK(logged(*env, 1) == 2);
  CHECK(visible_as_of(*env).empty());

  one_write(env, false);  // tx 2: the assertion of tx 1 was already cancelled in tx 1
  CHECK(eavt_records(*env) == 2);
  CHECK(logged(*env, 2) == 0);

  {  // retract (not stored), assert, retract: the assertion survives until the last retraction
    auto w = begin_write(env);
    require_ok(w->retract_fact(kE, kA, Value::integer(7)));
    require_ok(w->assert_fact(kE, kA, Value::integer(7), 0, kForever));
    require_ok(w->retract_fact(kE, kA, Value::integer(7)));
    require_ok(w->commit());
  }
  CHECK(logged(*env, 3) == 2);
  CHECK(visible_as_of(*env).empty());

  {  // retract (not stored) then assert: the fact is asserted (writes apply in order)
    auto w = begin_write(env);
    require_ok(w->retract_fact(kE, kA, Value::integer(7)));
    require_ok(w->assert_fact(kE, kA, Value::integer(7), 0, kForever));
    require_ok(w->commit());
  }
  CHECK(logged(*env, 4) == 1);
  CHECK(visible_as_of(*env) == std::vector<std::uint64_t>{4});
}

TEST_CASE("retract: a rolled-back savepoint takes its unstored retraction's counter with it",
          "[retract]") {
  TempDir dir;
  auto env = open_graph(dir.file("retract.graph"));
  auto w = begin_write(env);
  require_ok(w->savepoint(0));
  require_ok(w->retract_fact(kE, kA, Value::integer(7)));
  require_ok(w->rollback_to(0));
  require_ok(w->commit());
  CHECK(last_tx(*env) == 0);
}

}  // namespace
}  // namespace datalog::store::testing
