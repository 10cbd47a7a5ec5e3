// Transaction counters, the transaction log and statistics (write_txn.h, catalog.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <thread>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kA = 10;
constexpr EntityId kB = 11;

GraphStats graph_stats(GraphEnv& env) {
  ReadSnapshot r(env);
  GraphStats g;
  require_ok(read_graph_stats(r.txn(), env.tables(), &g));
  return g;
}

AttributeStats attribute_stats(GraphEnv& env, EntityId a) {
  ReadSnapshot r(env);
  AttributeStats s;
  require_ok(read_attribute_stats(r.txn(), env.tables(), a, &s));
  return s;
}

std::vector<Datom> tx_datoms(GraphEnv& env, std::uint64_t tx) {
  ReadSnapshot r(env);
  std::vector<Datom> out;
  require_ok(read_tx_datoms(r.txn(), env.tables(), tx, &out));
  return out;
}

std::vector<Datom> everything(GraphEnv& env) {
  ReadSnapshot r(env);
  return scan_all(env, r.txn(), IndexId::Eavt, any_time());
}

TEST_CASE("counters: only a transaction that writes a datom consumes a counter", "[counters]") {
  TempDir dir;
  auto env = open_graph(dir.file("counters.graph"));
  CHECK(graph_stats(*env).last_tx == 0);

  {  // nothing written
    auto w = begin_write(env);
    CHECK(w->tx() == 1);
    require_ok(w->commit());
    CHECK_FALSE(w->open());
  }
  CHECK(graph_stats(*env).last_tx == 0);

  {  // aborted
    auto w = begin_write(env);
    CHECK(w->tx() == 1);
    require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
    w->abort();
    w->abort();  // safe twice
  }
  CHECK(graph_stats(*env).last_tx == 0);
  CHECK(everything(*env).empty());

  {  // dropped without commit: the destructor aborts and frees the writer
    auto w = begin_write(env);
    require_ok(w->assert_fact(1, kA, Value::integer(2), 0, kForever));
  }
  CHECK(graph_stats(*env).last_tx == 0);

  {  // everything rolled back to a savepoint
    auto w = begin_write(env);
    require_ok(w->savepoint(0));
    require_ok(w->assert_fact(1, kA, Value::integer(3), 0, kForever));
    require_ok(w->rollback_to(0));
    require_ok(w->commit());
  }
  CHECK(graph_stats(*env).last_tx == 0);
  CHECK(everything(*env).empty());

  {  // a datom: counter 1
    auto w = begin_write(env);
    CHECK(w->tx() == 1);
    require_ok(w->assert_fact(1, kA, Value::integer(4), 0, kForever));
    require_ok(w->commit());
    CHECK_FALSE(w->open());
    CHECK(w->commit().code() == StatusCode::Misuse);  // closed
  }
  CHECK(graph_stats(*env).last_tx == 1);
  CHECK(everything(*env).size() == 1);

  {  // retracting what was never asserted is a write (LANGUAGE.md §5): counter 2
    auto w = begin_write(env);
    CHECK(w->tx() == 2);
    require_ok(w->retract_fact(99, kA, Value::string("never")));
    require_ok(w->commit());
  }
  CHECK(graph_stats(*env).last_tx == 2);

  {  // only an ident: committed, but no datom, so no counter
    auto w = begin_write(env);
    CHECK(w->tx() == 3);
    EntityId alice = 0;
    require_ok(w->resolve_ident(Value::keyword(":alice"), &alice));
    CHECK(alice == static_cast<EntityId>(std::uint64_t{1} << 52));
    require_ok(w->commit());
  }
  CHECK(graph_stats(*env).last_tx == 2);
  {
    ReadSnapshot r(*env);
    std::optional<EntityId> id;
    require_ok(lookup_ident(r.txn(), env->tables(), Value::keyword(":alice"), &id));
    REQUIRE(id.has_value());
    std::optional<Value> name;
    require_ok(ident_name(r.txn(), env->tables(), *id, &name));
    REQUIRE(name.has_value());
    CHECK(*name == Value::keyword(":alice"));
  }
  auto w = begin_write(env);
  CHECK(w->tx() == 3);
  CHECK_FALSE(committed_tx_info(*env, 3).has_value());
}

TEST_CASE("counters: tx_as_of_time gives the last transaction at or before a time", "[counters]") {
  TempDir dir;
  auto env = open_graph(dir.file("times.graph"));
  constexpr int kCount = 8;
  std::vector<std::int64_t> times{0};  // times[tx]
  for (int i = 1; i <= kCount; ++i) {
    auto w = begin_write(env);
    require_ok(w->assert_fact(i, kA, Value::integer(i), 0, kForever));
    times.push_back(w->tx_time_ms());
    require_ok(w->commit());
    // Spread some transactions over distinct milliseconds; others may share one.
    if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  for (int tx = 1; tx <= kCount; ++tx) {
    const auto info = committed_tx_info(*env, tx);
    REQUIRE(info.has_value());
    CHECK(info->time_ms == times[tx]);
    CHECK(info->datoms == 1);
    if (tx > 1) CHECK(times[tx - 1] <= times[tx]);  // wall time never runs backwards
  }
  CHECK(times[kCount] > times[1]);  // the sleeps made at least two distinct times

  auto expected_at = [&](std::int64_t t) {
    std::uint64_t last = 0;
    for (int tx = 1; tx <= kCount; ++tx) {
      if (times[tx] <= t) last = tx;
    }
    return last;
  };
  ReadSnapshot r(*env);
  auto as_of = [&](std::int64_t t) {
    std::uint64_t tx = 999;
    require_ok(tx_as_of_time(r.txn(), env->tables(), t, &tx));
    return tx;
  };
  for (int tx = 1; tx <= kCount; ++tx) {
    INFO("tx " << tx << " at " << times[tx]);
    CHECK(as_of(times[tx]) == expected_at(times[tx]));
    CHECK(as_of(times[tx]) >= static_cast<std::uint64_t>(tx));
    CHECK(as_of(times[tx] - 1) == expected_at(times[tx] - 1));
    CHECK(as_of(times[tx] - 1) < static_cast<std::uint64_t>(tx));
  }
  CHECK(as_of(0) == 0);
  CHECK(as_of(std::numeric_limits<std::int64_t>::min()) == 0);
  CHECK(as_of(std::numeric_limits<std::int64_t>::max()) == kCount);
}

TEST_CASE("counters: read_tx_datoms returns a transaction's datoms in EAVT order",
          "[counters][log]") {
  TempDir dir;
  auto env = open_graph(dir.file("log.graph"));
  const Value giant = Value::string(std::string(kInlineLimit + 100, 'G'));
  commit_facts(env, {Datom{2, kA, Value::string("gone"), 0, Op::Assert, 5, 10}});

  std::uint64_t tx = 0;
  std::int64_t time = 0;
  {
    auto w = begin_write(env);
    tx = w->tx();
    time = w->tx_time_ms();
    require_ok(w->assert_fact(1, kA, Value::string("x"), 0, kForever));
    require_ok(w->assert_fact(1, kB, giant, -5, 5));
    require_ok(w->assert_fact(3, kB, Value::ref(1), 7, 8));
    require_ok(w->retract_fact(2, kA, Value::string("gone")));
    require_ok(w->assert_fact(2, kA, Value::string("gone"), 1, 2));
    require_ok(w->commit());
  }
  REQUIRE(tx == 2);
  const std::vector<Datom> expected = {
      Datom{1, kA, Value::string("x"), tx, Op::Assert, 0, kForever},
      Datom{1, kB, giant, tx, Op::Assert, -5, 5},
      Datom{2, kA, Value::string("gone"), tx, Op::Retract, time, kForever},
      Datom{2, kA, Value::string("gone"), tx, Op::Reassert, 1, 2},
      Datom{3, kB, Value::ref(1), tx, Op::Assert, 7, 8},
  };
  CHECK(as_text(tx_datoms(*env, tx)) == as_text(expected));
  CHECK(as_text(tx_datoms(*env, 1)) ==
        as_text({Datom{2, kA, Value::string("gone"), 1, Op::Assert, 5, 10}}));
  CHECK(tx_datoms(*env, 3).empty());
  CHECK(tx_datoms(*env, 0).empty());
  const auto info = committed_tx_info(*env, tx);
  REQUIRE(info.has_value());
  CHECK(info->datoms == expected.size());
  CHECK(info->time_ms == time);
}

TEST_CASE("counters: a large transaction's datoms and count", "[counters][log]") {
  TempDir dir;
  auto env = open_graph(dir.file("large.graph"));
  constexpr int kDatoms = 3000;
  std::vector<Datom> facts;
  for (int i = 0; i < kDatoms; ++i) {
    facts.push_back(Datom{i % 97, kA,
                          Value::string("value number " + std::to_string(i) + std::string(60, '.')),
                          0, Op::Assert, i, kForever});
  }
  const std::uint64_t tx = commit_facts(env, facts);
  for (Datom& d : facts) d.tx = tx;
  std::vector<std::string> expected = as_text(facts), read = as_text(tx_datoms(*env, tx));
  std::sort(expected.begin(), expected.end());
  std::sort(read.begin(), read.end());
  CHECK(read == expected);
  const auto info = committed_tx_info(*env, tx);
  REQUIRE(info.has_value());
  CHECK(info->datoms == kDatoms);
}

TEST_CASE("counters: graph and attribute statistics of a small dataset", "[counters][stats]") {
  TempDir dir;
  auto env = open_graph(dir.file("stats.graph"));
  GraphStats g = graph_stats(*env);
  CHECK(g.records == 0);
  CHECK(g.entities == 0);
  CHECK(g.attributes == 0);

  commit_facts(env, {
                        Datom{1, kA, Value::string("x"), 0, Op::Assert, 0, kForever},
                        Datom{1, kA, Value::string("y"), 0, Op::Assert, 0, kForever},
                        Datom{2, kA, Value::string("x"), 0, Op::Assert, 0, kForever},
                        Datom{2, kB, Value::integer(5), 0, Op::Assert, 0, kForever},
                        Datom{3, kB, Value::ref(1), 0, Op::Assert, 0, kForever},
                    });
  g = graph_stats(*env);
  CHECK(g.last_tx == 1);
  CHECK(g.records == 5);
  CHECK(g.entities == 3);
  CHECK(g.attributes == 2);
  AttributeStats a = attribute_stats(*env, kA);
  CHECK(a.records == 3);
  CHECK(a.entities == 2);  // 1, 2
  CHECK(a.values == 2);    // "x", "y"
  AttributeStats b = attribute_stats(*env, kB);
  CHECK(b.records == 2);
  CHECK(b.entities == 2);  // 2, 3
  CHECK(b.values == 2);    // 5, ref 1

  // A retraction is a record too; a new entity and a new value are counted once.
  commit_facts(env, {
                        Datom{1, kA, Value::string("x"), 0, Op::Retract, 0, kForever},
                        Datom{4, kA, Value::string("z"), 0, Op::Assert, 0, kForever},
                        Datom{1, kA, Value::string("y"), 0, Op::Assert, 0, kForever},
                    });
  g = graph_stats(*env);
  CHECK(g.last_tx == 2);
  CHECK(g.records == 8);
  CHECK(g.entities == 4);
  a = attribute_stats(*env, kA);
  CHECK(a.records == 6);
  CHECK(a.entities == 3);  // 1, 2, 4
  CHECK(a.values == 3);    // "x", "y", "z"

  // The same record twice in one transaction is stored once.
  commit_facts(env, {
                        Datom{5, kB, Value::integer(7), 0, Op::Assert, 0, kForever},
                        Datom{5, kB, Value::integer(7), 0, Op::Assert, 0, kForever},
                        Datom{5, kB, Value::integer(7), 0, Op::Assert, 9, kForever},
                    });
  g = graph_stats(*env);
  CHECK(g.records == 10);
  CHECK(g.entities == 5);
  b = attribute_stats(*env, kB);
  CHECK(b.records == 4);
  CHECK(b.entities == 3);  // 2, 3, 5
  CHECK(b.values == 3);    // 5, ref 1, 7

  {  // aborted and rolled-back writes leave no trace in the statistics
    auto w = begin_write(env);
    require_ok(w->assert_fact(8, kA, Value::string("q"), 0, kForever));
    w->abort();
    auto w2 = begin_write(env);
    require_ok(w2->assert_fact(9, kB, Value::integer(1), 0, kForever));
    require_ok(w2->savepoint(0));
    require_ok(w2->assert_fact(10, kB, Value::integer(2), 0, kForever));
    require_ok(w2->assert_fact(9, kA, Value::string("w"), 0, kForever));
    require_ok(w2->rollback_to(0));
    require_ok(w2->commit());
  }
  g = graph_stats(*env);
  CHECK(g.last_tx == 4);
  CHECK(g.records == 11);
  CHECK(g.entities == 6);
  CHECK(g.attributes == 2);
  a = attribute_stats(*env, kA);
  CHECK(a.records == 6);
  CHECK(a.entities == 3);
  CHECK(a.values == 3);
  b = attribute_stats(*env, kB);
  CHECK(b.records == 5);
  CHECK(b.entities == 4);  // 2, 3, 5, 9
  CHECK(b.values == 4);    // 5, ref 1, 7, 1
  const AttributeStats none = attribute_stats(*env, 12345);
  CHECK(none.records == 0);
  CHECK(none.entities == 0);
  CHECK(none.values == 0);
}

}  // namespace
}  // namespace datalog::store::testing
