// Several graph transactions in one LMDB transaction (WriteTxn::next_transaction): what an
// autocommit datalog_exec script writes, one counter per command, committed or dropped whole.
#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kA = 10;

std::uint64_t last_tx(GraphEnv& env) {
  ReadSnapshot r(env);
  GraphStats g;
  require_ok(read_graph_stats(r.txn(), env.tables(), &g));
  return g.last_tx;
}

TEST_CASE("next_transaction: each sealed part keeps its own counter, all commit together",
          "[next_transaction]") {
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  auto w = begin_write(env);
  require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
  require_ok(w->next_transaction());
  CHECK(w->tx() == 2);
  require_ok(w->next_transaction());  // wrote nothing since: keeps counter 2
  CHECK(w->tx() == 2);
  require_ok(w->assert_fact(2, kA, Value::integer(2), 0, kForever));
  require_ok(w->assert_fact(3, kA, Value::integer(3), 0, kForever));
  require_ok(w->next_transaction());
  CHECK(w->tx() == 3);
  CHECK(last_tx(*env) == 0);  // nothing visible before the commit
  CHECK(committed_datoms(*env).empty());
  require_ok(w->commit());  // the last part wrote nothing: counter 3 is not consumed
  CHECK(last_tx(*env) == 2);
  REQUIRE(committed_tx_info(*env, 1));
  CHECK(committed_tx_info(*env, 1)->datoms == 1);
  REQUIRE(committed_tx_info(*env, 2));
  CHECK(committed_tx_info(*env, 2)->datoms == 2);
  CHECK_FALSE(committed_tx_info(*env, 3));
  CHECK(committed_tx_info(*env, 1)->time_ms <= committed_tx_info(*env, 2)->time_ms);
  CHECK(committed_datoms(*env) == std::vector<std::string>{
                                "[e 1 a 10 v 1 tx 1 assert valid 0..forever]", "[e 2 a 10 v 2 tx 2 assert valid 0..forever]",
                                "[e 3 a 10 v 3 tx 2 assert valid 0..forever]"});
}

TEST_CASE("next_transaction: dropped without commit, no part is written", "[next_transaction]") {
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  {
    auto w = begin_write(env);
    require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
    require_ok(w->next_transaction());
    require_ok(w->assert_fact(2, kA, Value::integer(2), 0, kForever));
  }  // the destructor aborts
  CHECK(last_tx(*env) == 0);
  CHECK(committed_datoms(*env).empty());
  auto w = begin_write(env);
  CHECK(w->tx() == 1);
}

TEST_CASE("next_transaction: rules alone consume no counter; a savepoint must be closed",
          "[next_transaction]") {
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  auto w = begin_write(env);
  require_ok(w->add_rule(StoredRule{"r", "(rule [(r ?x) [?x :a _]])"}));
  require_ok(w->next_transaction());
  CHECK(w->tx() == 1);
  require_ok(w->savepoint(0));
  require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
  CHECK(w->next_transaction().code() == StatusCode::Misuse);
  require_ok(w->release(0));
  require_ok(w->next_transaction());
  CHECK(w->tx() == 2);
  require_ok(w->commit());
  CHECK(last_tx(*env) == 1);
}

TEST_CASE("next_transaction: rolling everything back restarts at the first counter",
          "[next_transaction]") {
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  auto w = begin_write(env);
  require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
  require_ok(w->next_transaction());
  require_ok(w->assert_fact(2, kA, Value::integer(2), 0, kForever));
  require_ok(w->rollback_to(-1));
  CHECK(w->tx() == 1);
  require_ok(w->assert_fact(3, kA, Value::integer(3), 0, kForever));
  require_ok(w->commit());
  CHECK(last_tx(*env) == 1);
  CHECK(committed_datoms(*env) == std::vector<std::string>{"[e 3 a 10 v 3 tx 1 assert valid 0..forever]"});
}

}  // namespace
}  // namespace datalog::store::testing
