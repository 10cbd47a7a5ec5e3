// The fault guard (lmdb_store/page_fault_guard.h): a fault or an LMDB assertion inside a guarded
// call comes back as kPageFault, the thread can fault again after it, and other threads are
// guarded on their own.
#include <signal.h>

#include <catch2/catch.hpp>
#include <thread>

#include "lmdb_store/page_fault_guard.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

TEST_CASE("a fault inside a guarded call returns kPageFault", "[fault_guard]") {
  CHECK(guarded(nullptr, [] { return 7; }) == 7);
  CHECK(guarded(nullptr, [] { ::raise(SIGSEGV); return 0; }) == kPageFault);
  CHECK(guarded(nullptr, [] { ::raise(SIGBUS); return 0; }) == kPageFault);
  // The signal is not left blocked: the same thread is guarded again.
  CHECK(guarded(nullptr, [] { ::raise(SIGSEGV); return 0; }) == kPageFault);
  CHECK(guarded(nullptr, [] { return MDB_NOTFOUND; }) == MDB_NOTFOUND);
}

TEST_CASE("an LMDB assertion inside a guarded call returns kPageFault", "[fault_guard]") {
  CHECK(guarded(nullptr, [] { on_lmdb_assert(nullptr, "assertion"); return 0; }) == kPageFault);
  // Outside a guarded call the hook returns, and LMDB aborts as it would without us.
}

TEST_CASE("each thread is guarded on its own", "[fault_guard]") {
  int results[4] = {};
  std::thread threads[4];
  for (int i = 0; i < 4; ++i) {
    threads[i] = std::thread([&results, i] {
      for (int round = 0; round < 50; ++round) {
        results[i] += guarded(nullptr, [i, round] {
          if ((i + round) % 2 == 0) ::raise(SIGSEGV);
          return 1;
        }) == kPageFault;
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r : results) CHECK(r == 25);
}

TEST_CASE("damage found in a record names itself and marks no environment without one",
          "[fault_guard]") {
  const Status st = index_damage(nullptr, "an index key is malformed");
  CHECK(st.code() == StatusCode::Corrupt);
  CHECK(st.message() ==
        "the index is damaged (an index key is malformed); it is rebuilt from the log by the "
        "next statement");
}

TEST_CASE("an environment knows where its file is mapped", "[fault_guard]") {
  // within_file() keeps a damaged node's size from reading past the file's pages (SIGBUS outside
  // any guarded call); it can only refuse what it knows lies in the map, found at open in the
  // process's map list. A record's bytes lie in the map: a size reaching past the file's end is
  // refused; one inside the file is not.
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  ReadSnapshot snapshot(*env);
  MDB_cursor* cursor = nullptr;
  REQUIRE(mdb_cursor_open(snapshot.txn(), env->tables().meta, &cursor) == MDB_SUCCESS);
  MDB_val k, v;
  REQUIRE(mdb_cursor_get(cursor, &k, &v, MDB_FIRST) == MDB_SUCCESS);
  mdb_cursor_close(cursor);
  CHECK(env->within_file(v.mv_data, v.mv_size));
  CHECK_FALSE(env->within_file(v.mv_data, std::size_t{1} << 40));
}

}  // namespace
}  // namespace datalog::store::testing
