// A write transaction that commits its index part way (WriteTxn::commit_interim): its records
// reach the file before it commits, marked as an unfinished transaction; readers share none of
// its idents; commit() clears the mark, an abort leaves it (the next writer rebuilds); and the
// estimate of its dirty pages, which decides when an import commits, grows with its writes.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kName = 20;

bool unfinished(GraphEnv& env) {
  ReadSnapshot r(env);
  std::uint64_t from = 0;
  require_ok(read_counter(r.txn(), env.tables().meta, meta_key::kUnfinishedFrom, &from));
  return from != 0;
}

std::optional<EntityId> shared_lookup(GraphEnv& env, const Value& name) {
  ReadSnapshot r(env);
  std::optional<EntityId> id;
  require_ok(lookup_ident(r.txn(), env.tables(), &env.read_cache(), name, &id));
  return id;
}

TEST_CASE("interim commit: the records reach the file, marked unfinished until the commit", "[interim]") {
  TempDir dir;
  auto env = open_graph(dir.file("interim.graph"));
  commit_facts(env, {Datom{1, kName, Value::string("before"), 0, Op::Assert, 0, kForever}});
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  EntityId alice = 0;
  require_ok(w->resolve_ident(Value::keyword(":alice"), &alice));
  require_ok(w->assert_fact(alice, kName, Value::string("Alice"), 0, kForever));
  require_ok(w->commit_interim());
  CHECK(w->committed_in_part());

  // Another reader sees the records in the file, beyond the last committed transaction (a
  // reader's bound, the log's last transaction, hides them), and the mark.
  {
    ReadSnapshot r(*env);
    CHECK(as_sorted_text(scan_all(*env, r.txn(), IndexId::Eavt, any_time(tx - 1))) ==
          std::vector<std::string>{datom_text({1, kName, Value::string("before"), 1, Op::Assert, 0, kForever})});
    CHECK(scan_all(*env, r.txn(), IndexId::Eavt, any_time()).size() == 2);
  }
  CHECK(unfinished(*env));
  // The ident is found, but not kept in the cache every reader shares: if the transaction
  // never commits, its id may go to another name.
  CHECK(shared_lookup(*env, Value::keyword(":alice")) == alice);
  CHECK_FALSE(env->read_cache().entity_of(Value::keyword(":alice")).has_value());
  // Again in the same state, where the mark is known without reading it (ReadCache keeps it per
  // committed state).
  CHECK(shared_lookup(*env, Value::keyword(":alice")) == alice);
  CHECK_FALSE(env->read_cache().entity_of(Value::keyword(":alice")).has_value());

  // The transaction goes on, reads what it wrote before the interim commit, and commits whole.
  EntityId again = 0;
  require_ok(w->resolve_ident(Value::keyword(":alice"), &again));
  CHECK(again == alice);
  require_ok(w->assert_fact(alice, kName, Value::string("Alice B."), 0, kForever));
  CHECK(scan_all(*env, w->read_txn(), IndexId::Aevt, any_time()).size() == 3);
  require_ok(w->commit());
  CHECK_FALSE(unfinished(*env));
  CHECK(committed_datoms(*env).size() == 3);
  CHECK(committed_tx_info(*env, tx)->datoms == 2);
  CHECK(shared_lookup(*env, Value::keyword(":alice")) == alice);
  CHECK(env->read_cache().entity_of(Value::keyword(":alice")) == alice);
}

TEST_CASE("interim commit: an abort leaves the mark for the next writer", "[interim]") {
  TempDir dir;
  auto env = open_graph(dir.file("aborted.graph"));
  {
    auto w = begin_write(env);
    require_ok(w->assert_fact(1, kName, Value::string("kept in part"), 0, kForever));
    require_ok(w->commit_interim());
    require_ok(w->assert_fact(2, kName, Value::string("lost"), 0, kForever));
    w->abort();
  }
  CHECK(unfinished(*env));
  auto w = begin_write(env);
  IndexPosition pos;
  require_ok(index_position(*w, &pos));
  CHECK(pos.unfinished);
  // What reached the file is the part before the interim commit.
  CHECK(as_sorted_text(scan_all(*env, w->read_txn(), IndexId::Eavt, any_time())) ==
        std::vector<std::string>{datom_text({1, kName, Value::string("kept in part"), 1, Op::Assert, 0, kForever})});
}

TEST_CASE("interim commit: not inside a savepoint, and no rollback to the start after one", "[interim]") {
  TempDir dir;
  auto env = open_graph(dir.file("refused.graph"));
  auto w = begin_write(env);
  require_ok(w->assert_fact(1, kName, Value::string("one"), 0, kForever));
  require_ok(w->savepoint(0));
  CHECK(w->commit_interim().code() == StatusCode::Misuse);
  require_ok(w->release(0));
  require_ok(w->commit_interim());
  const Status st = w->rollback_to(-1);
  CHECK(st.code() == StatusCode::Misuse);
  CHECK_THAT(st.message(), Catch::Contains("committed part of its index"));
  CHECK_FALSE(w->open());
  CHECK(w->commit().code() == StatusCode::Misuse);
}

TEST_CASE("interim commit: the dirty estimate grows with writes and starts again after one", "[interim]") {
  TempDir dir;
  auto env = open_graph(dir.file("estimate.graph"));
  auto w = begin_write(env);
  CHECK(w->dirty_estimate() == 0);
  for (EntityId e = 1; e <= 2000; ++e) {
    require_ok(w->assert_fact(e, kName, Value::string("value " + std::to_string(e)), 0, kForever));
  }
  (void)w->read_txn();  // writes the deferred records
  const std::size_t written = w->dirty_estimate();
  // 2,000 facts in ascending order, four records of ~20 bytes each, appended: tens of KB.
  CHECK(written > 2000 * 3 * 20);
  CHECK(written < 2000 * 4 * 80);
  require_ok(w->commit_interim());
  CHECK(w->dirty_estimate() == 0);
  // Puts into the middle of a small table count no more pages than the table has.
  for (EntityId e = 1; e <= 2000; e += 2) {
    require_ok(w->assert_fact(e, kName, Value::string("again " + std::to_string(e)), 0, kForever));
  }
  (void)w->read_txn();
  CHECK(w->dirty_estimate() < 4 * 200 * 4096);
  require_ok(w->commit());
  CHECK(committed_datoms(*env).size() == 3000);
}

}  // namespace
}  // namespace datalog::store::testing
