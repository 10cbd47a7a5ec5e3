// Writers and readers in one process (graph_env.h): one writer at a time, Busy after the
// timeout, readers keep their snapshot.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "lmdb_store/datom_scan.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr auto kShortTimeout = std::chrono::milliseconds(100);
constexpr auto kLongTimeout = std::chrono::milliseconds(10'000);
constexpr EntityId kA = 30;

Datom fact(EntityId e, std::uint64_t tx) {
  return Datom{e, kA, Value::integer(e), tx, Op::Assert, 0, kForever};
}

std::vector<std::string> seen_in(const GraphEnv& env, MDB_txn* txn) {
  return as_sorted_text(scan_all(env, txn, IndexId::Eavt, any_time()));
}

TEST_CASE("concurrency: a second writer on another thread gets Busy after its timeout",
          "[concurrency]") {
  TempDir dir;
  auto env = open_graph(dir.file("writers.graph"));
  std::promise<void> began, may_commit;
  std::future<void> may_commit_future = may_commit.get_future();
  std::thread holder([&] {
    std::unique_ptr<WriteTxn> w;
    Status st = WriteTxn::begin(env, kLongTimeout, &w);
    began.set_value();
    if (!st.ok()) return;
    st = w->assert_fact(1, kA, Value::integer(1), 0, kForever);
    may_commit_future.wait();
    if (st.ok()) w->commit();
  });
  began.get_future().wait();

  std::unique_ptr<WriteTxn> second;
  const Status busy = WriteTxn::begin(env, kShortTimeout, &second);
  CHECK(busy.code() == StatusCode::Busy);
  CHECK(busy.message().find("another writer in this process") != std::string::npos);
  CHECK(busy.message().find(env->path()) != std::string::npos);
  CHECK(second == nullptr);

  // A writer that waits long enough gets the graph once the first one commits.
  std::unique_ptr<WriteTxn> waiter;
  std::thread releaser([&] { may_commit.set_value(); });
  const Status st = WriteTxn::begin(env, kLongTimeout, &waiter);
  releaser.join();
  holder.join();
  require_ok(st);
  CHECK(waiter->tx() == 2);  // the holder's commit took counter 1
  CHECK(seen_in(*env, waiter->txn()) == as_sorted_text({fact(1, 1)}));
  waiter->abort();
}

TEST_CASE("concurrency: a second writer on the same thread gets Busy at once", "[concurrency]") {
  TempDir dir;
  auto env = open_graph(dir.file("same_thread.graph"));
  std::unique_ptr<WriteTxn> first;
  require_ok(WriteTxn::begin(env, kLongTimeout, &first));
  CHECK(env->writer_held_by_this_thread());
  std::unique_ptr<WriteTxn> second;
  // Waiting could never succeed (the holder is this thread), so no waiting at all: the message
  // says why rather than that a timeout passed.
  const Status busy = WriteTxn::begin(env, kLongTimeout, &second);
  CHECK(busy.code() == StatusCode::Busy);
  CHECK(busy.message().find("another connection on this thread") != std::string::npos);
  first->abort();
  CHECK_FALSE(env->writer_held_by_this_thread());
  require_ok(WriteTxn::begin(env, kShortTimeout, &second));
  second->abort();
}

TEST_CASE("concurrency: commit from another thread is Misuse", "[concurrency]") {
  TempDir dir;
  auto env = open_graph(dir.file("owner.graph"));
  std::unique_ptr<WriteTxn> w;
  require_ok(WriteTxn::begin(env, kLongTimeout, &w));
  require_ok(w->assert_fact(1, kA, Value::integer(1), 0, kForever));
  Status from_other;
  std::thread other([&] { from_other = w->commit(); });
  other.join();
  CHECK(from_other.code() == StatusCode::Misuse);
  CHECK(w->open());
  require_ok(w->commit());  // the owner still can
  ReadSnapshot r(*env);
  CHECK(seen_in(*env, r.txn()) == as_sorted_text({fact(1, 1)}));
}

TEST_CASE("concurrency: a read snapshot does not see later commits, a new one does",
          "[concurrency]") {
  TempDir dir;
  auto env = open_graph(dir.file("snapshots.graph"));
  commit_facts(env, {fact(1, 0)});
  ReadSnapshot before(*env);
  CHECK(seen_in(*env, before.txn()) == as_sorted_text({fact(1, 1)}));

  std::unique_ptr<WriteTxn> w;
  require_ok(WriteTxn::begin(env, kLongTimeout, &w));
  require_ok(w->assert_fact(2, kA, Value::integer(2), 0, kForever));
  require_ok(w->retract_fact(1, kA, Value::integer(1)));
  // Uncommitted writes are the writer's alone.
  CHECK(seen_in(*env, w->read_txn()) == as_sorted_text({fact(2, 2)}));
  {
    ReadSnapshot during(*env);
    CHECK(seen_in(*env, during.txn()) == as_sorted_text({fact(1, 1)}));
  }
  require_ok(w->commit());

  CHECK(seen_in(*env, before.txn()) == as_sorted_text({fact(1, 1)}));
  ReadSnapshot after(*env);
  CHECK(seen_in(*env, after.txn()) == as_sorted_text({fact(2, 2)}));
  // A snapshot on another thread sees the same.
  std::vector<std::string> from_thread;
  std::thread reader([&] {
    MDB_txn* txn = nullptr;
    if (!env->begin_read(&txn).ok()) return;
    DatomScan s;
    if (s.start(*env, txn, IndexId::Eavt, "", "", any_time()).ok()) {
      while (!s.at_end()) {
        from_thread.push_back(datom_text(s.datom()));
        if (!s.next().ok()) break;
      }
    }
    s.close();
    env->end_read(txn);
  });
  reader.join();
  CHECK(from_thread == as_sorted_text({fact(2, 2)}));
}

TEST_CASE("concurrency: the map grows while reader threads keep starting snapshots",
          "[concurrency][map]") {
  TempDir dir;
  OpenOptions small;
  small.initial_map_bytes = std::size_t{1} << 20;
  auto env = open_graph(dir.file("growing.graph"), small);
  constexpr int kBatch = 200;
  constexpr int kBatches = 40;  // about 8,000 facts of 100 bytes: several times 1 MiB
  const std::string pad(100, 'p');

  // Readers count the facts of each snapshot: always whole batches, never fewer than before.
  std::atomic<bool> stop{false};
  std::atomic<int> reader_errors{0}, snapshots{0};
  auto reader = [&] {
    std::size_t last = 0;
    while (!stop.load()) {
      MDB_txn* txn = nullptr;
      if (!env->begin_read(&txn).ok()) {
        ++reader_errors;
        return;
      }
      // A DatomScan of its own: the test_support helpers use Catch's macros, which are not
      // thread-safe.
      std::size_t n = 0;
      DatomScan s;
      Status st = s.start(*env, txn, IndexId::Eavt, "", "", any_time());
      while (st.ok() && !s.at_end()) {
        ++n;
        st = s.next();
      }
      s.close();
      env->end_read(txn);
      if (!st.ok() || n % kBatch != 0 || n < last) ++reader_errors;
      last = n;
      ++snapshots;
    }
  };
  std::thread r1(reader), r2(reader);

  int committed = 0, retries = 0;
  while (committed < kBatches && retries < 20) {
    std::unique_ptr<WriteTxn> w;
    require_ok(WriteTxn::begin(env, kLongTimeout, &w));
    Status st;
    for (int i = 0; i < kBatch && st.ok(); ++i) {
      const EntityId e = committed * kBatch + i + 1;
      st = w->assert_fact(e, kA, Value::string(std::to_string(e) + pad), 0, kForever);
    }
    if (st.ok()) st = w->commit();
    if (st.ok()) {
      ++committed;
    } else {
      INFO(describe(st));
      REQUIRE(st.code() == StatusCode::MapGrown);  // the map was grown: the batch goes again
      ++retries;
    }
  }
  stop.store(true);
  r1.join();
  r2.join();
  CHECK(committed == kBatches);
  CHECK(env->map_bytes() > small.initial_map_bytes);
  CHECK(reader_errors.load() == 0);
  CHECK(snapshots.load() > 0);
  ReadSnapshot r(*env);
  CHECK(scan_all(*env, r.txn(), IndexId::Eavt, any_time()).size() ==
        static_cast<std::size_t>(kBatch * kBatches));
}

}  // namespace
}  // namespace datalog::store::testing
