// Crash: a writer process killed (SIGKILL) in the middle of a large transaction leaves the graph
// with exactly the transactions it committed before, and the graph stays writable.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "lmdb_store/catalog.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr int kCommitted = 6;
constexpr EntityId kFirstUncommitted = 1'000'000;
constexpr int kSignalAfter = 20'000;  // facts of the big transaction written before "mid-write"
constexpr int kMaxBigFacts = 100'000;
constexpr auto kTimeout = std::chrono::milliseconds(5'000);
constexpr EntityId kName = 50;
constexpr EntityId kLink = 51;

std::vector<Datom> committed_facts(int i, std::uint64_t tx) {
  return {
      Datom{i, kName, Value::string("committed " + std::to_string(i)), tx, Op::Assert, 0, kForever},
      Datom{i, kLink, Value::ref(i + 1), tx, Op::Assert, i, kForever}};
}

// The child: commits kCommitted transactions, then writes a large one until it is killed.
int doomed_writer(const std::string& path, Pipe& to_parent) {
  to_parent.close_read();
  auto fail = [&](const std::string& why, int code) {
    to_parent.send(why);
    return code;
  };
  std::shared_ptr<GraphEnv> env;
  Status st = GraphEnv::open(path, OpenOptions{}, &env);
  if (!st.ok()) return fail("open failed: " + st.message(), 1);
  for (int i = 1; i <= kCommitted; ++i) {
    std::unique_ptr<WriteTxn> w;
    st = WriteTxn::begin(env, kTimeout, &w);
    for (const Datom& d : committed_facts(i, 0)) {
      if (st.ok()) st = w->assert_fact(d.e, d.a, d.v, d.valid_from, d.valid_to);
    }
    if (st.ok()) st = w->commit();
    if (!st.ok()) return fail("commit failed: " + st.message(), 2);
    to_parent.send("committed " + std::to_string(i));
  }
  std::unique_ptr<WriteTxn> w;
  st = WriteTxn::begin(env, kTimeout, &w);
  if (!st.ok()) return fail("begin failed: " + st.message(), 3);
  const std::string pad(100, 'x');
  for (int j = 0; j < kMaxBigFacts && st.ok(); ++j) {
    st = w->assert_fact(kFirstUncommitted + j, kName, Value::string(pad + std::to_string(j)), 0,
                        kForever);
    if (j == kSignalAfter) to_parent.send("mid-write");
  }
  if (!st.ok()) return fail("big write failed: " + st.message(), 4);
  ::pause();  // waits for SIGKILL with the transaction still open
  return 5;
}

TEST_CASE("crash: a writer killed mid-transaction leaves exactly the committed transactions",
          "[crash][processes]") {
  TempDir dir;
  const std::string path = dir.file("crash.graph");  // never opened by this process before
  Pipe to_parent;
  const pid_t pid = fork_child([&] { return doomed_writer(path, to_parent); }, 300);
  to_parent.close_write();
  for (int i = 1; i <= kCommitted; ++i) {
    REQUIRE(to_parent.receive() == std::optional<std::string>("committed " + std::to_string(i)));
  }
  REQUIRE(to_parent.receive() == std::optional<std::string>("mid-write"));
  REQUIRE(::kill(pid, SIGKILL) == 0);
  const int status = wait_child(pid);
  REQUIRE(WIFSIGNALED(status));
  REQUIRE(WTERMSIG(status) == SIGKILL);

  auto env = open_graph(path);
  std::vector<Datom> expected;
  for (int i = 1; i <= kCommitted; ++i) {
    for (const Datom& d : committed_facts(i, static_cast<std::uint64_t>(i))) expected.push_back(d);
  }
  {
    ReadSnapshot r(*env);
    CHECK(as_sorted_text(scan_all(*env, r.txn(), IndexId::Eavt, any_time())) ==
          as_sorted_text(expected));
    // Nothing of the killed transaction, in any table.
    std::string name_prefix;
    put_ordered_int(name_prefix, kName);
    CHECK(scan_prefix(*env, r.txn(), IndexId::Aevt, name_prefix, any_time()).size() == kCommitted);
    GraphStats g;
    REQUIRE(read_graph_stats(r.txn(), env->tables(), &g).ok());
    CHECK(g.last_tx == kCommitted);
    CHECK(g.records == expected.size());
    CHECK(g.entities == kCommitted);
    std::optional<TxInfo> killed;
    REQUIRE(read_tx_info(r.txn(), env->tables(), kCommitted + 1, &killed).ok());
    CHECK_FALSE(killed.has_value());
    std::vector<Datom> log;
    REQUIRE(read_tx_datoms(r.txn(), env->tables(), kCommitted + 1, &log).ok());
    CHECK(log.empty());
  }

  // The dead writer's locks are gone: this process can write at once.
  std::unique_ptr<WriteTxn> w;
  const Status st = WriteTxn::begin(env, std::chrono::milliseconds(1'000), &w);
  INFO(describe(st));
  REQUIRE(st.ok());
  CHECK(w->tx() == kCommitted + 1);
  REQUIRE(w->assert_fact(7, kName, Value::string("after the crash"), 0, kForever).ok());
  REQUIRE(w->commit().ok());
  ReadSnapshot r(*env);
  GraphStats g;
  REQUIRE(read_graph_stats(r.txn(), env->tables(), &g).ok());
  CHECK(g.last_tx == kCommitted + 1);
}

}  // namespace
}  // namespace datalog::store::testing
