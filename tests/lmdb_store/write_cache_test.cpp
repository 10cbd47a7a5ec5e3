// What WriteTxn caches between calls — one cursor per index per savepoint level, the idents of
// the transaction, and the committed idents it shares through the graph's ReadCache — must
// never outlive the savepoint level it came from: a rolled-back ident never comes back and
// never reaches the shared cache, and writes after a rollback or release land where they should.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "engine/uuid_text.h"
#include "lmdb_store/catalog.h"
#include "lmdb_store/read_cache.h"
#include "lmdb_store/txn_idents.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr EntityId kA = 20;

EntityId ident(WriteTxn& w, std::string_view name) {
  EntityId id = 0;
  require_ok(w.resolve_ident(Value::keyword(std::string(name)), &id));
  return id;
}

// The ident as a fresh read snapshot sees it in LMDB, bypassing every cache.
std::optional<EntityId> committed_ident(GraphEnv& env, std::string_view name) {
  ReadSnapshot r(env);
  std::optional<EntityId> id;
  require_ok(lookup_ident(r.txn(), env.tables(), Value::keyword(std::string(name)), &id));
  return id;
}

std::optional<EntityId> shared_ident(GraphEnv& env, std::string_view name) {
  return env.read_cache().entity_of(Value::keyword(std::string(name)));
}

void put(WriteTxn& w, EntityId e) {
  require_ok(w.assert_fact(e, kA, Value::integer(e * 10), 0, kForever));
}

Datom fact(EntityId e, std::uint64_t tx) {
  return Datom{e, kA, Value::integer(e * 10), tx, Op::Assert, 0, kForever};
}

std::vector<std::string> committed(GraphEnv& env) {
  ReadSnapshot r(env);
  return as_sorted_text(scan_all(env, r.txn(), IndexId::Eavt, any_time()));
}

TEST_CASE("write cache: an ident rolled back with its savepoint is forgotten", "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("idents.graph"));
  auto w = begin_write(env);
  const EntityId kept = ident(*w, ":kept");
  require_ok(w->savepoint(0));
  const EntityId gone = ident(*w, ":gone");
  CHECK(ident(*w, ":gone") == gone);  // found again inside the savepoint
  require_ok(w->rollback_to(0));
  // The counter went back with the savepoint: the next new ident takes the rolled-back id, and
  // ":gone" must not come back with it.
  const EntityId other = ident(*w, ":other");
  CHECK(other == gone);
  const EntityId again = ident(*w, ":gone");
  CHECK(again != other);
  CHECK(ident(*w, ":kept") == kept);

  // Through a released inner level that its parent then rolls back.
  require_ok(w->savepoint(1));
  const EntityId inner = ident(*w, ":inner");
  require_ok(w->release(1));
  CHECK(ident(*w, ":inner") == inner);
  require_ok(w->rollback_to(0));  // drops ":other", the second ":gone" and ":inner"
  const EntityId reused = ident(*w, ":reused");
  CHECK(reused == other);
  const EntityId other_again = ident(*w, ":other");
  const EntityId inner_again = ident(*w, ":inner");
  CHECK(other_again != reused);
  CHECK(inner_again != reused);
  CHECK(inner_again != other_again);
  CHECK_FALSE(shared_ident(*env, ":kept"));  // nothing is shared before the commit
  require_ok(w->commit());

  // New idents are not pushed into the shared cache at commit; whatever it holds is right.
  const char* const names[] = {":kept", ":other", ":gone", ":reused", ":inner"};
  for (const char* name : names) {
    INFO(name);
    const std::optional<EntityId> shared = shared_ident(*env, name);
    CHECK((!shared || shared == committed_ident(*env, name)));
  }
  // A later transaction that meets them shares them: they were committed before it began.
  auto later = begin_write(env);
  for (const char* name : names) ident(*later, name);
  later->abort();
  for (const char* name : names) {
    INFO(name);
    CHECK(shared_ident(*env, name) == committed_ident(*env, name));
  }
}

TEST_CASE("write cache: the ident counter kept in memory reaches the graph at commit", "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("counter.graph"));
  std::vector<EntityId> ids;
  {
    auto w = begin_write(env);
    ids.push_back(ident(*w, ":one"));
    require_ok(w->savepoint(0));
    ids.push_back(ident(*w, ":two"));
    require_ok(w->release(0));
    ids.push_back(ident(*w, ":three"));
    require_ok(w->commit());
  }
  {  // a later transaction, and a rolled-back one, continue from the committed counter
    auto w = begin_write(env);
    ids.push_back(ident(*w, ":four"));
    w->abort();
  }
  auto w = begin_write(env);
  const EntityId five = ident(*w, ":five");
  CHECK(five == ids.back());  // the aborted ":four" gave its id back
  ids.pop_back();
  ids.push_back(five);
  require_ok(w->commit());
  for (std::size_t i = 1; i < ids.size(); ++i) CHECK(ids[i] == ids[i - 1] + 1);
  CHECK(committed_ident(*env, ":one") == ids[0]);
  CHECK(committed_ident(*env, ":three") == ids[2]);
  CHECK(committed_ident(*env, ":five") == ids[3]);
  CHECK_FALSE(committed_ident(*env, ":four"));
}

TEST_CASE("write cache: a rolled-back transaction shares none of its idents", "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("aborted.graph"));
  {
    auto w = begin_write(env);
    ident(*w, ":old");
    require_ok(w->commit());
  }
  auto w = begin_write(env);
  ident(*w, ":old");
  const EntityId lost = ident(*w, ":lost");
  require_ok(w->rollback_to(-1));  // SQLite's whole-transaction savepoint: start over
  CHECK(ident(*w, ":new") == lost);
  CHECK(ident(*w, ":lost") != lost);
  // A keyword that spells a uuid names the uuid's entity: LMDB finds this transaction's new
  // ident under the other spelling, and it must stay out of the shared cache all the same.
  const std::string uuid_text = "22222222-3333-4444-5555-666666666666";
  EntityId by_uuid = 0;
  require_ok(w->resolve_ident(Value::uuid(*parse_uuid(uuid_text)), &by_uuid));
  CHECK(ident(*w, ":" + uuid_text) == by_uuid);
  w->abort();
  CHECK_FALSE(shared_ident(*env, ":" + uuid_text));
  CHECK_FALSE(shared_ident(*env, ":lost"));
  CHECK_FALSE(shared_ident(*env, ":new"));
  CHECK_FALSE(committed_ident(*env, ":lost"));
  CHECK(shared_ident(*env, ":old") == committed_ident(*env, ":old"));

  // The next transaction hands out the same id again, to a name of its own.
  auto next = begin_write(env);
  CHECK(ident(*next, ":fresh") == lost);
  require_ok(next->commit());
  CHECK(committed_ident(*env, ":fresh") == lost);
  CHECK_FALSE(shared_ident(*env, ":fresh"));  // created by a writer: shared once someone meets it
  CHECK_FALSE(shared_ident(*env, ":lost"));
}

TEST_CASE("write cache: a transaction keeps a bounded number of idents; LMDB answers the rest",
          "[write-cache]") {
  const std::size_t n = TxnIdents::kMaxEntries + 10;
  TxnIdents kept;
  for (std::size_t i = 0; i < n; ++i) kept.remember(Value::keyword(":k" + std::to_string(i)), static_cast<EntityId>(i));
  CHECK(kept.find(Value::keyword(":k0")) == EntityId{0});
  CHECK_FALSE(kept.find(Value::keyword(":k" + std::to_string(n - 1))));
  kept.undo_to(0);
  CHECK_FALSE(kept.find(Value::keyword(":k0")));

  TempDir dir;
  auto env = open_graph(dir.file("many.graph"));
  auto w = begin_write(env);
  std::vector<EntityId> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back(ident(*w, ":e" + std::to_string(i)));
  for (std::size_t i : {std::size_t{0}, n / 2, n - 1}) CHECK(ident(*w, ":e" + std::to_string(i)) == ids[i]);
  require_ok(w->commit());
  CHECK(committed_ident(*env, ":e" + std::to_string(n - 1)) == ids.back());
}

TEST_CASE("write cache: a transaction's idents undo to a savepoint's mark", "[write-cache]") {
  TxnIdents kept;
  CHECK_FALSE(kept.find(Value::keyword(":a")));
  kept.remember(Value::keyword(":a"), 1);
  kept.remember(Value::keyword(":a"), 99);  // known already: the first id stays
  const std::size_t mark = kept.mark();
  for (int i = 0; i < 200; ++i) kept.remember(Value::keyword(":b" + std::to_string(i)), 100 + i);
  kept.remember(Value::string(":a"), 7);  // a string is not the keyword of the same text
  CHECK(kept.find(Value::keyword(":a")) == EntityId{1});
  CHECK(kept.find(Value::keyword(":b150")) == EntityId{250});
  CHECK(kept.find(Value::string(":a")) == EntityId{7});
  kept.undo_to(mark);
  CHECK(kept.mark() == mark);
  CHECK(kept.find(Value::keyword(":a")) == EntityId{1});
  CHECK_FALSE(kept.find(Value::keyword(":b150")));
  CHECK_FALSE(kept.find(Value::string(":a")));
  kept.remember(Value::keyword(":b150"), 5);  // the rolled-back id went to another name
  CHECK(kept.find(Value::keyword(":b150")) == EntityId{5});
  kept.clear();
  CHECK_FALSE(kept.find(Value::keyword(":a")));
}

TEST_CASE("write cache: a transaction's idents answer as a map does, through marks, undos and clears",
          "[write-cache]") {
  // Random remembers, savepoint marks, undos and clears against a plain model: the filter in
  // front of the table may only ever send a lookup on to the table, never answer "missing" for a
  // name that is there. Names come from a small pool, so most lookups of a round hit.
  TxnIdents kept;
  std::vector<std::pair<std::string, EntityId>> model;  // in the order remembered
  std::vector<std::size_t> marks;
  std::uint64_t x = 7;
  const auto next = [&x] { return x = x * 6364136223846793005ULL + 1442695040888963407ULL; };
  const auto modelled = [&model](const std::string& name) -> std::optional<EntityId> {
    for (const auto& [n, id] : model) {
      if (n == name) return id;
    }
    return std::nullopt;
  };
  for (int step = 0; step < 40000; ++step) {
    const std::uint64_t r = next() >> 33;
    const std::string name = ":n" + std::to_string(r % 3000);
    switch (r % 100) {
      case 0:
        if (!marks.empty()) {
          kept.undo_to(marks.back());
          model.resize(std::min(model.size(), marks.back()));
          marks.pop_back();
        }
        break;
      case 1:
        marks.push_back(kept.mark());
        break;
      case 2:
        if (r % 7 == 0) {
          kept.clear();
          model.clear();
          marks.clear();
        }
        break;
      default:
        if (r % 3 == 0) {
          kept.remember(Value::keyword(name), static_cast<EntityId>(step));
          if (!modelled(name)) model.emplace_back(name, static_cast<EntityId>(step));
        } else {
          REQUIRE(kept.find(Value::keyword(name)) == modelled(name));
        }
    }
    REQUIRE(kept.mark() == model.size());
  }
  for (const auto& [name, id] : model) CHECK(kept.find(Value::keyword(name)) == id);
}

TEST_CASE("read cache: a thread's copy follows its cache and the committed state",
          "[write-cache]") {
  ReadCache one, two;  // two graphs used by one thread in turn
  one.remember_ident(Value::keyword(":a"), 1);
  two.remember_ident(Value::keyword(":a"), 2);
  for (int round = 0; round < 2; ++round) {
    CHECK(one.entity_of(Value::keyword(":a")) == EntityId{1});
    CHECK(two.entity_of(Value::keyword(":a")) == EntityId{2});
  }
  CHECK_FALSE(one.entity_of(Value::keyword(":b")));

  one.remember_graph_stats(5, GraphStats{10, 3, 1, 5});
  one.remember_attribute_stats(5, 7, AttributeStats{10, 3, 2});
  REQUIRE(one.graph_stats(5));
  CHECK(one.graph_stats(5)->records == 10);
  REQUIRE(one.attribute_stats(5, 7));
  CHECK(one.attribute_stats(5, 7)->values == 2);
  CHECK_FALSE(one.graph_stats(6));  // another committed state: not known
  one.remember_graph_stats(6, GraphStats{11, 3, 1, 6});
  REQUIRE(one.graph_stats(6));
  CHECK(one.graph_stats(6)->records == 11);
  CHECK_FALSE(one.attribute_stats(6, 7));  // state 5's figures do not carry over
  CHECK_FALSE(one.graph_stats(5));
  // Another thread sees what this one remembered.
  std::optional<EntityId> seen;
  std::thread other([&] { seen = one.entity_of(Value::keyword(":a")); });
  other.join();
  CHECK(seen == EntityId{1});
}

TEST_CASE("read cache: one lookup tells an ident, a known miss of this state, or neither",
          "[write-cache]") {
  ReadCache cache;
  const Value a = Value::keyword(":a"), b = Value::keyword(":b");
  ReadCache::IdentLookup found = cache.find_ident(5, b);
  CHECK_FALSE(found.entity);
  CHECK_FALSE(found.missing);  // never asked: LMDB must answer

  cache.remember_missing(5, b);
  found = cache.find_ident(5, b);
  CHECK_FALSE(found.entity);
  CHECK(found.missing);
  found = cache.find_ident(6, b);  // a later state may have made :b an ident
  CHECK_FALSE(found.entity);
  CHECK_FALSE(found.missing);

  cache.remember_ident(a, 1);
  for (const std::uint64_t state : {5, 6}) {  // a committed ident holds in every state
    found = cache.find_ident(state, a);
    CHECK(found.entity == EntityId{1});
    CHECK_FALSE(found.missing);
  }
}
TEST_CASE("write cache: index cursors follow savepoint levels", "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("cursors.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  put(*w, 1);  // opens the root level's cursors
  require_ok(w->savepoint(0));
  put(*w, 2);  // the savepoint's own cursors
  require_ok(w->savepoint(1));
  put(*w, 3);
  require_ok(w->rollback_to(1));  // level 1's cursors end with its LMDB transaction
  put(*w, 4);
  require_ok(w->release(1));
  put(*w, 5);  // level 0's cursors again, after a child came and went
  require_ok(w->rollback_to(0));
  put(*w, 6);
  require_ok(w->release(0));
  put(*w, 7);  // the root's cursors, still valid after its children ended
  put(*w, 7);  // the same record again: the replace path
  require_ok(w->commit());
  CHECK(committed(*env) ==
        as_sorted_text(std::vector<Datom>{fact(1, tx), fact(6, tx), fact(7, tx)}));

  // A whole-transaction rollback drops the root's cursors with it.
  auto again = begin_write(env);
  const std::uint64_t tx2 = again->tx();
  put(*again, 8);
  require_ok(again->rollback_to(-1));
  put(*again, 9);
  require_ok(again->commit());
  CHECK(committed(*env) ==
        as_sorted_text(std::vector<Datom>{fact(1, tx), fact(6, tx), fact(7, tx), fact(9, tx2)}));
}

TEST_CASE("write cache: records in ascending order are appended, the rest found by search",
          "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("append.graph"));
  auto w = begin_write(env);
  const std::uint64_t tx = w->tx();
  std::vector<Datom> expected;
  auto add = [&](EntityId e) {
    put(*w, e);
    expected.push_back(fact(e, tx));
  };
  for (EntityId e = 100; e < 300; ++e) add(e);  // ascending: appended
  add(50);                                      // before the last key: LMDB refuses the append
  for (EntityId e = 300; e < 400; ++e) add(e);  // ascending again: appends resume
  add(75);
  put(*w, 399);  // the last key again: the replace path
  require_ok(w->savepoint(0));
  for (EntityId e = 400; e < 420; ++e) add(e);  // a savepoint level has cursors of its own
  add(10);
  require_ok(w->release(0));
  add(420);
  require_ok(w->commit());
  CHECK(committed(*env) == as_sorted_text(expected));
}

TEST_CASE("read cache: a name that is no ident is remembered for its committed state only",
          "[write-cache]") {
  TempDir dir;
  auto env = open_graph(dir.file("missing.graph"));
  const Value later = Value::keyword(":later");
  auto lookup = [&] {
    ReadSnapshot r(*env);
    std::optional<EntityId> id;
    require_ok(lookup_ident(r.txn(), env->tables(), &env->read_cache(), later, &id));
    return id;
  };
  CHECK_FALSE(lookup());
  CHECK_FALSE(lookup());  // answered from the cache
  auto w = begin_write(env);
  const EntityId created = ident(*w, ":later");
  require_ok(w->commit());
  CHECK(lookup() == created);  // a new state: the miss no longer holds
}

}  // namespace
}  // namespace datalog::store::testing
