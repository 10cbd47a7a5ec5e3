// The name table (ident_names) is keyed by a name's length, then the name: only exact look-ups
// read it, so its order serves its pages. Names made in numeric order (:e0, :e1, ... :e19999)
// must fill its pages as the id table's appends do, and every name, long ones included, must be
// found again with its own id.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lmdb_store/catalog.h"
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
  REQUIRE(names.ms_entries == static_cast<std::size_t>(kNames));
  REQUIRE(by_id.ms_entries == static_cast<std::size_t>(kNames));
  // Both tables hold the same bytes per record, give or take one; the id table is appended in
  // order, so its pages are full. Keyed by the name alone, the name table took 1.9 times its pages.
  INFO("ident_names leaves " << names.ms_leaf_pages << ", ident_ids leaves " << by_id.ms_leaf_pages);
  CHECK(static_cast<double>(names.ms_leaf_pages) <= 1.15 * static_cast<double>(by_id.ms_leaf_pages));
  for (int i = 0; i < kNames; i += 997) {
    CHECK(committed_ident(*env, Value::keyword(":e" + std::to_string(i))) == ids[static_cast<std::size_t>(i)]);
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
  REQUIRE(table_stat(*env, env->tables().ident_names).ms_entries == names.size());
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

}  // namespace
}  // namespace datalog::store::testing
