// NameTable (lmdb_store/name_table.h): committed names by id, read without a lock. A name once
// set stays where it is, so pointers handed to readers never dangle or change under them.
#include <catch2/catch.hpp>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "lmdb_store/meta.h"
#include "lmdb_store/name_table.h"

namespace datalog::store::testing {
namespace {

EntityId ident_id(std::uint64_t offset) { return static_cast<EntityId>(kFirstIdentId + offset); }

TEST_CASE("name table: names by id, kept where they were first set", "[name-table]") {
  NameTable names;
  CHECK(names.find(ident_id(0)) == nullptr);
  REQUIRE(names.insert(ident_id(0), Value::keyword(":alice")));
  REQUIRE(names.insert(ident_id(NameTable::kPageSize + 3), Value::keyword(":bob")));
  const Value* alice = names.find(ident_id(0));
  REQUIRE(alice != nullptr);
  CHECK(*alice == Value::keyword(":alice"));
  CHECK(*names.find(ident_id(NameTable::kPageSize + 3)) == Value::keyword(":bob"));
  CHECK(names.find(ident_id(1)) == nullptr);  // same page, never set

  // A second insert of the same id keeps the first name, at the same address.
  CHECK(names.insert(ident_id(0), Value::keyword(":other")));
  CHECK(names.find(ident_id(0)) == alice);
  CHECK(*alice == Value::keyword(":alice"));

  // Ids outside the table are refused, not wrapped onto another id's slot.
  CHECK_FALSE(names.insert(5, Value::keyword(":low")));
  CHECK_FALSE(names.insert(ident_id(NameTable::kMaxIds), Value::keyword(":high")));
  CHECK(names.find(5) == nullptr);
  CHECK(names.find(ident_id(NameTable::kMaxIds)) == nullptr);
  CHECK(names.find(ident_id(0)) == alice);
  CHECK(names.insert(ident_id(NameTable::kMaxIds - 1), Value::keyword(":last")));
  CHECK(*names.find(ident_id(NameTable::kMaxIds - 1)) == Value::keyword(":last"));
}

TEST_CASE("name table: readers see whole names while one writer adds more", "[name-table]") {
  NameTable names;
  constexpr std::uint64_t kCount = 3 * NameTable::kPageSize;
  std::atomic<bool> done{false};
  std::atomic<long> bad{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r) {
    readers.emplace_back([&] {
      while (!done.load()) {
        for (std::uint64_t i = 0; i < kCount; i += 97) {
          const Value* v = names.find(ident_id(i));
          if (v && *v != Value::keyword(":entity-with-a-long-name-" + std::to_string(i))) ++bad;
        }
      }
    });
  }
  for (std::uint64_t i = 0; i < kCount; ++i) {
    names.insert(ident_id(i), Value::keyword(":entity-with-a-long-name-" + std::to_string(i)));
  }
  done = true;
  for (auto& t : readers) t.join();
  CHECK(bad.load() == 0);
  for (std::uint64_t i = 0; i < kCount; ++i) REQUIRE(names.find(ident_id(i)) != nullptr);
}

}  // namespace
}  // namespace datalog::store::testing
