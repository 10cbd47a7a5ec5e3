// Parked reads (graph_env.h): a read transaction that ended at the newest state is taken again
// as it is by the next reader of that state, a reader after a commit sees the commit, and a
// parked one stops pinning its state after the watchdog's sweeps.
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kA = 30;

Datom fact(EntityId e) { return Datom{e, kA, Value::integer(e), 0, Op::Assert, 0, kForever}; }

// The snapshots LMDB's reader table holds now, from every thread of this process (a reset
// transaction holds none).
int held_snapshots(const GraphEnv& env) {
  int held = 0;
  auto each = [](const char* line, void* ctx) -> int {
    long pid = 0;
    unsigned long long thread = 0, txnid = 0;
    if (std::sscanf(line, " %ld %llx %llu", &pid, &thread, &txnid) == 3 && txnid > 0) {
      ++*static_cast<int*>(ctx);
    }
    return 0;
  };
  mdb_reader_list(env.env(), each, &held);
  return held;
}

TEST_CASE("parked reads: the next reader of the same state takes the parked transaction",
          "[parked-reads]") {
  TempDir dir;
  auto env = open_graph(dir.file("parked.graph"));
  commit_facts(env, {fact(1)});
  MDB_txn* first = nullptr;
  require_ok(env->begin_read(&first));
  const std::uint64_t state = mdb_txn_id(first);
  env->end_read(first);
  CHECK(held_snapshots(*env) == 1);  // parked, not reset

  MDB_txn* again = nullptr;
  require_ok(env->begin_read(&again));
  CHECK(again == first);
  CHECK(mdb_txn_id(again) == state);
  CHECK(as_sorted_text(scan_all(*env, again, IndexId::Eavt, any_time())) ==
        as_sorted_text({Datom{1, kA, Value::integer(1), 1, Op::Assert, 0, kForever}}));
  env->end_read(again);
}

TEST_CASE("parked reads: a reader after a commit sees it, not the parked state",
          "[parked-reads]") {
  TempDir dir;
  auto env = open_graph(dir.file("parked.graph"));
  commit_facts(env, {fact(1)});
  MDB_txn* before = nullptr;
  require_ok(env->begin_read(&before));
  const std::uint64_t old_state = mdb_txn_id(before);
  env->end_read(before);
  commit_facts(env, {fact(2)});

  MDB_txn* after = nullptr;
  require_ok(env->begin_read(&after));
  CHECK(mdb_txn_id(after) > old_state);
  CHECK(scan_all(*env, after, IndexId::Eavt, any_time()).size() == 2);
  env->end_read(after);
  // Only the newest state is parked: the old one pins nothing any more.
  CHECK(held_snapshots(*env) == 1);
}

TEST_CASE("parked reads: sweeps reset a parked transaction; usage() counts none",
          "[parked-reads]") {
  TempDir dir;
  auto env = open_graph(dir.file("parked.graph"));
  commit_facts(env, {fact(1)});
  MDB_txn* txn = nullptr;
  require_ok(env->begin_read(&txn));
  env->end_read(txn);
  REQUIRE(held_snapshots(*env) == 1);
  SECTION("the second sweep after parking resets it") {
    // Stop the watchdog's own sweeps from racing the count: they only make it 0 sooner.
    env->sweep_parked_reads();
    env->sweep_parked_reads();
    CHECK(held_snapshots(*env) == 0);
  }
  SECTION("the watchdog sweeps by itself within a second") {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (held_snapshots(*env) > 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHECK(held_snapshots(*env) == 0);
  }
  SECTION("usage() resets this process's parked reads before it counts readers") {
    GraphEnv::Usage u;
    require_ok(env->usage(&u));
    CHECK(u.readers == 0);
  }
  // A reset transaction is renewed by the next reader, at the newest state.
  MDB_txn* next = nullptr;
  require_ok(env->begin_read(&next));
  CHECK(scan_all(*env, next, IndexId::Eavt, any_time()).size() == 1);
  env->end_read(next);
}

TEST_CASE("parked reads: the map grows past parked transactions of other threads",
          "[parked-reads]") {
  TempDir dir;
  auto env = open_graph(dir.file("parked.graph"));
  commit_facts(env, {fact(1)});
  for (int i = 0; i < 4; ++i) {
    std::thread([&] {
      MDB_txn* txn = nullptr;
      if (env->begin_read(&txn).ok()) env->end_read(txn);
    }).join();
  }
  const std::size_t before = env->map_bytes();
  require_ok(env->grow_map(std::chrono::milliseconds(1000)));
  CHECK(env->map_bytes() > before);
  CHECK(held_snapshots(*env) == 0);  // the resize aborted them
  MDB_txn* txn = nullptr;
  require_ok(env->begin_read(&txn));
  CHECK(scan_all(*env, txn, IndexId::Eavt, any_time()).size() == 1);
  env->end_read(txn);
}

}  // namespace
}  // namespace datalog::store::testing
