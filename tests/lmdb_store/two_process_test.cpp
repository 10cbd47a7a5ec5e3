// Two processes on one graph file: a writer in a forked child holds the write lock across
// processes; the parent's readers keep their snapshot; the parent then sees the child's commit.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "lmdb_store/catalog.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr auto kParentTimeout = std::chrono::milliseconds(200);
constexpr auto kChildTimeout = std::chrono::milliseconds(5'000);
constexpr EntityId kA = 40;

Datom fact(EntityId e, std::uint64_t tx) {
  return Datom{e, kA, Value::string("fact " + std::to_string(e)), tx, Op::Assert, 0, kForever};
}

std::vector<std::string> seen_in(const GraphEnv& env, MDB_txn* txn) {
  return as_sorted_text(scan_all(env, txn, IndexId::Eavt, any_time()));
}

// The child: opens the graph itself, writes fact 2, says so, commits when told to.
int child_writer(const std::string& path, const GraphEnv* parent_env, Pipe& to_parent,
                 Pipe& to_child) {
  to_parent.close_read();
  to_child.close_write();
  auto fail = [&](const std::string& why, int code) {
    to_parent.send(why);
    return code;
  };
  std::shared_ptr<GraphEnv> env;
  Status st = GraphEnv::open(path, OpenOptions{}, &env);
  if (!st.ok()) return fail("child open failed: " + st.message(), 1);
  // The registry must not hand the parent's environment to the child (LMDB forbids using an
  // environment across fork).
  if (env.get() == parent_env) return fail("child got the parent's environment", 2);
  std::unique_ptr<WriteTxn> w;
  st = WriteTxn::begin(env, kChildTimeout, &w);
  if (!st.ok()) return fail("child begin failed: " + st.message(), 3);
  const Datom d = fact(2, 0);
  st = w->assert_fact(d.e, d.a, d.v, d.valid_from, d.valid_to);
  if (!st.ok()) return fail("child assert failed: " + st.message(), 4);
  to_parent.send("writing tx " + std::to_string(w->tx()));
  if (to_child.receive() != "commit") return 5;
  st = w->commit();
  if (!st.ok()) return fail("child commit failed: " + st.message(), 6);
  w.reset();
  env.reset();
  to_parent.send("committed");
  return 0;
}

TEST_CASE("processes: a writer in another process makes ours Busy, readers keep snapshots",
          "[processes]") {
  TempDir dir;
  const std::string path = dir.file("shared.graph");
  auto env = open_graph(path);
  commit_facts(env, {fact(1, 0)});
  ReadSnapshot before(*env);

  Pipe to_parent, to_child;
  const pid_t pid = fork_child([&] { return child_writer(path, env.get(), to_parent, to_child); });
  to_parent.close_write();
  to_child.close_read();

  REQUIRE(to_parent.receive() == std::optional<std::string>("writing tx 2"));
  std::unique_ptr<WriteTxn> w;
  const Status busy = WriteTxn::begin(env, kParentTimeout, &w);
  CHECK(busy.code() == StatusCode::Busy);
  CHECK(busy.message().find("another process") != std::string::npos);
  CHECK(w == nullptr);
  {  // reading goes on while the other process writes
    ReadSnapshot during(*env);
    CHECK(seen_in(*env, during.txn()) == as_sorted_text({fact(1, 1)}));
  }

  REQUIRE(to_child.send("commit"));
  REQUIRE(to_parent.receive() == std::optional<std::string>("committed"));
  const int status = wait_child(pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  CHECK(seen_in(*env, before.txn()) == as_sorted_text({fact(1, 1)}));
  ReadSnapshot after(*env);
  CHECK(seen_in(*env, after.txn()) == as_sorted_text({fact(1, 1), fact(2, 2)}));
  GraphStats g;
  REQUIRE(read_graph_stats(after.txn(), env->tables(), &g).ok());
  CHECK(g.last_tx == 2);
  CHECK(g.records == 2);

  const Status again = WriteTxn::begin(env, kParentTimeout, &w);
  INFO(describe(again));
  REQUIRE(again.ok());
  CHECK(w->tx() == 3);
  w->abort();
}

}  // namespace
}  // namespace datalog::store::testing
