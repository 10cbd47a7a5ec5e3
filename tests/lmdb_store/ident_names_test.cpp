// The name table (ident_names) is keyed by a name's length, then the name: only exact look-ups
// read it, so its order serves its pages. Names made in numeric order (:e0, :e1, ... :e19999)
// must fill its pages, as must the id table's blocks (ident_id_blocks.h), and every name, long ones
// included, must be found again with its own id, and every id give back its name.
#include <catch2/catch.hpp>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/ident_id_blocks.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

MDB_stat table_stat(GraphEnv& env, MDB_dbi dbi) {
  ReadSnapshot r(env);
  MDB_stat st{};
  REQUIRE(mdb_stat(r.txn(), dbi, &st) == MDB_SUCCESS);
  return st;
}

// The bytes of a table's records as LMDB lays them out: node header, key, data, slot.
std::size_t table_bytes(GraphEnv& env, MDB_dbi dbi) {
  ReadSnapshot r(env);
  MDB_cursor* c = nullptr;
  REQUIRE(mdb_cursor_open(r.txn(), dbi, &c) == MDB_SUCCESS);
  std::size_t bytes = 0;
  MDB_val k, v;
  for (int rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == MDB_SUCCESS; rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
    bytes += 8 + k.mv_size + v.mv_size + (v.mv_size & 1) + 2;
  }
  mdb_cursor_close(c);
  return bytes;
}

std::optional<EntityId> committed_ident(GraphEnv& env, const Value& name) {
  ReadSnapshot r(env);
  std::optional<EntityId> id;
  require_ok(lookup_ident(r.txn(), env.tables(), name, &id));
  return id;
}

TEST_CASE("ident names: names made in numeric order fill the name table's pages", "[idents]") {
  TempDir dir;
  auto env = open_graph(dir.file("names.graph"));
  constexpr int kNames = 20000, kPerTransaction = 5000;
  std::vector<EntityId> ids;
  for (int first = 0; first < kNames; first += kPerTransaction) {
    auto w = begin_write(env);
    for (int i = first; i < first + kPerTransaction; ++i) {
      EntityId id = 0;
      require_ok(w->resolve_ident(Value::keyword(":e" + std::to_string(i)), &id));
      ids.push_back(id);
    }
    require_ok(w->commit());
  }
  const MDB_stat names = table_stat(*env, env->tables().ident_names);
  const MDB_stat by_id = table_stat(*env, env->tables().ident_ids);
  // Names that differ only in their last character share a record (ident_name_groups.h): ten a
  // record here (:e0 ... :e9, :e10 ... :e19, ...).
  REQUIRE(names.ms_entries == static_cast<std::size_t>(kNames / 10));
  REQUIRE(by_id.ms_entries >= static_cast<std::size_t>(kNames / kIdsPerBlock));  // 16 names a record
  REQUIRE(by_id.ms_entries <= static_cast<std::size_t>(kNames / kIdsPerBlock + 2));
  // Full pages: the records' bytes (with LMDB's 8-byte node and 2-byte slot each) over a page's
  // 4,080 usable bytes. Keyed by the name alone, the name table took 1.9 times that.
  const double full = static_cast<double>(table_bytes(*env, env->tables().ident_names)) / 4080.0;
  INFO("ident_names leaves " << names.ms_leaf_pages << ", full " << full);
  CHECK(static_cast<double>(names.ms_leaf_pages) <= 1.05 * full + 1);
  // The id table's blocks grow in place at its end and fill its pages too.
  const double ids_full = static_cast<double>(table_bytes(*env, env->tables().ident_ids)) / 4080.0;
  INFO("ident_ids leaves " << by_id.ms_leaf_pages << ", full " << ids_full);
  CHECK(static_cast<double>(by_id.ms_leaf_pages) <= 1.15 * ids_full + 1);
  for (int i = 0; i < kNames; i += 997) {
    CHECK(committed_ident(*env, Value::keyword(":e" + std::to_string(i))) == ids[static_cast<std::size_t>(i)]);
    ReadSnapshot r(*env);
    std::optional<Value> name;
    require_ok(ident_name(r.txn(), env->tables(), ids[static_cast<std::size_t>(i)], &name));
    CHECK(name == Value::keyword(":e" + std::to_string(i)));
  }
  CHECK_FALSE(committed_ident(*env, Value::keyword(":e" + std::to_string(kNames))));
}

TEST_CASE("ident names: long names, around the length byte's limit and past the inline limit, "
          "are told apart",
          "[idents]") {
  TempDir dir;
  auto env = open_graph(dir.file("long.graph"));
  // Encoded lengths from below 255 to past it (all share the byte 255 there), and giants
  // (longer than the inline limit, keyed by a prefix and a hash), each with a twin that differs
  // only in its last character.
  std::vector<Value> names;
  for (const std::size_t length : {200, 250, 252, 253, 254, 255, 256, 300, 1000}) {
    const std::string stem = ":" + std::string(length - 2, 'n');
    names.push_back(Value::keyword(stem + "a"));
    names.push_back(Value::keyword(stem + "b"));
  }
  std::vector<EntityId> ids;
  {
    auto w = begin_write(env);
    for (const Value& name : names) {
      EntityId id = 0;
      require_ok(w->resolve_ident(name, &id));
      ids.push_back(id);
    }
    require_ok(w->commit());
  }
  // The twins of 200 bytes differ only in their last character and share a record; past the
  // inline limit a name's key ends in a hash, so each of the others has a record of its own.
  REQUIRE(table_stat(*env, env->tables().ident_names).ms_entries == names.size() - 1);
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO("name of " << names[i].as_keyword().size() << " bytes");
    CHECK(committed_ident(*env, names[i]) == ids[i]);
    std::optional<Value> back;
    {
      ReadSnapshot r(*env);
      require_ok(ident_name(r.txn(), env->tables(), ids[i], &back));
    }
    CHECK(back == names[i]);
  }
}

// A writer puts names into the record it wrote last without searching for it (catalog.h,
// IdentCursors): savepoints rolled back and released, and interim commits, move its cursors
// between records. Names made across them, in and out of sequence, read back both ways.
TEST_CASE("ident names: names made across savepoints and interim commits read back both ways",
          "[idents]") {
  TempDir dir;
  auto env = open_graph(dir.file("savepoints.graph"));
  std::map<std::string, EntityId> made;
  auto w = begin_write(env);
  const auto name = [](int i) { return Value::keyword(":p" + std::to_string(i)); };
  const auto make = [&](int i) {
    EntityId id = 0;
    require_ok(w->resolve_ident(name(i), &id));
    return id;
  };
  for (int i = 0; i < 25; ++i) made[":p" + std::to_string(i)] = make(i);
  require_ok(w->savepoint(1));
  for (int i = 25; i < 40; ++i) make(i);  // rolled back: these names and ids are not kept
  require_ok(w->rollback_to(1));
  for (int i = 40; i < 47; ++i) made[":p" + std::to_string(i)] = make(i);
  require_ok(w->savepoint(2));
  for (int i = 47; i < 53; ++i) made[":p" + std::to_string(i)] = make(i);
  require_ok(w->release(1));  // the savepoint's names are kept, its cursors were other ones
  for (int i = 53; i < 61; ++i) made[":p" + std::to_string(i)] = make(i);
  require_ok(w->commit_interim());
  for (const int i : {3, 61, 7, 62, 27}) made[":p" + std::to_string(i)] = make(i);  // 3 and 7 exist
  require_ok(w->commit());

  ReadSnapshot r(*env);
  std::set<EntityId> ids;
  for (const auto& [text, id] : made) {
    INFO(text);
    std::optional<EntityId> found;
    require_ok(lookup_ident(r.txn(), env->tables(), Value::keyword(text), &found));
    CHECK(found == id);
    std::optional<Value> back;
    require_ok(ident_name(r.txn(), env->tables(), id, &back));
    CHECK(back == Value::keyword(text));
    ids.insert(id);
  }
  CHECK(ids.size() == made.size());  // every name its own id
  for (int i = 25; i < 40; ++i) {
    if (i == 27) continue;  // made again after the rollback
    std::optional<EntityId> found;
    require_ok(lookup_ident(r.txn(), env->tables(), name(i), &found));
    CHECK_FALSE(found);
  }
}

// A writer holds back the ident record it is building (catalog.h): reads through its read
// transaction see every name it made, before it commits, and so does a savepoint begun after.
TEST_CASE("ident names: names a writer holds back are read through its read transaction",
          "[idents]") {
  TempDir dir;
  auto env = open_graph(dir.file("held.graph"));
  auto w = begin_write(env);
  std::vector<EntityId> ids;
  for (int i = 0; i < 25; ++i) {
    EntityId id = 0;
    require_ok(w->resolve_ident(Value::keyword(":h" + std::to_string(i)), &id));
    ids.push_back(id);
  }
  const auto read_back = [&](MDB_txn* txn) {
    for (int i = 0; i < 25; ++i) {
      const Value name = Value::keyword(":h" + std::to_string(i));
      std::optional<EntityId> found;
      require_ok(lookup_ident(txn, env->tables(), name, &found));
      CHECK(found == ids[static_cast<std::size_t>(i)]);
      std::optional<Value> back;
      require_ok(ident_name(txn, env->tables(), ids[static_cast<std::size_t>(i)], &back));
      CHECK(back == name);
    }
  };
  read_back(w->catalog_read_txn());
  require_ok(w->savepoint(1));
  EntityId id = 0;
  require_ok(w->resolve_ident(Value::keyword(":h25"), &id));
  read_back(w->read_txn());
  require_ok(w->rollback_to(1));
  require_ok(w->release(1));
  require_ok(w->commit());
  ReadSnapshot r(*env);
  read_back(r.txn());
  std::optional<EntityId> gone;
  require_ok(lookup_ident(r.txn(), env->tables(), Value::keyword(":h25"), &gone));
  CHECK_FALSE(gone);
}

}  // namespace
}  // namespace datalog::store::testing
