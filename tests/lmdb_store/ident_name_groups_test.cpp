// The records of ident_names (lmdb_store/ident_name_groups.h): names whose keys differ only in
// their last two bytes share a record. A group is built one name at a time in any order, keeps
// its tails in order, and is read back tail by tail; a group read from a damaged file is refused,
// never read past its end.
#include "lmdb_store/ident_name_groups.h"

#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <random>
#include <string>

namespace datalog::store::testing {
namespace {

std::string add(const std::string& payload, const std::string& tail, EntityId id) {
  NameGroupPlace place;
  REQUIRE(search_name_group(payload, tail, &place));
  REQUIRE_FALSE(place.found);
  std::string out;
  insert_into_name_group(payload, place.insert_at, tail, id, &out);
  return out;
}

std::optional<EntityId> find_id(const std::string& payload, const std::string& tail) {
  NameGroupPlace place;
  REQUIRE(search_name_group(payload, tail, &place));
  return place.found ? std::optional<EntityId>(place.id) : std::nullopt;
}

TEST_CASE("ident name groups: a key is cut before its last two bytes") {
  const std::string key = std::string("\x05\x07:e12\x00", 7);
  CHECK(name_group_key(key) == std::string("\x05\x07:e1", 5));
  CHECK(name_tail(key) == std::string("2\x00", 2));
}

TEST_CASE("ident name groups: tails added in any order read back with their ids") {
  std::mt19937_64 rng(4);
  for (int round = 0; round < 300; ++round) {
    std::string payload;
    std::map<std::string, EntityId> names;
    const int count = 1 + static_cast<int>(rng() % 40);
    for (int i = 0; i < count; ++i) {
      std::string tail = {static_cast<char>(rng() % 256), static_cast<char>(rng() % 4)};
      if (names.count(tail)) continue;
      // Ids small and large, ident ids (from 2^52) and negative ones.
      const EntityId id = std::vector<EntityId>{7, (EntityId{1} << 52) + i, -3, INT64_MAX - i}[rng() % 4];
      payload = add(payload, tail, id);
      names[tail] = id;
    }
    for (const auto& [tail, id] : names) CHECK(find_id(payload, tail) == id);
    // Tails in order: the rebuilt group of the same names is the same bytes, whatever the order
    // they came in (an index rebuilt from the log compares byte for byte).
    std::string sorted;
    for (const auto& [tail, id] : names) sorted = add(sorted, tail, id);
    CHECK(sorted == payload);
  }
}

TEST_CASE("ident name groups: a tail a group holds is found, with its id") {
  const std::string payload = add(add("", "a1", 5), "b1", 6);
  NameGroupPlace place;
  REQUIRE(search_name_group(payload, "a1", &place));
  CHECK(place.found);
  CHECK(place.id == 5);
  CHECK_FALSE(search_name_group(payload, "abc", &place));  // not a tail
  CHECK(find_id(payload, "b1") == 6);
  CHECK_FALSE(find_id(payload, "c1"));
  // A tail between two goes between them.
  REQUIRE(search_name_group(payload, "a2", &place));
  CHECK_FALSE(place.found);
  CHECK(place.insert_at == payload.find("b1"));
}

TEST_CASE("ident name groups: a damaged group is refused or read within its bytes") {
  std::string payload;
  for (int i = 0; i < 10; ++i) payload = add(payload, std::string{static_cast<char>('0' + i), '\0'}, (EntityId{1} << 52) + i);
  std::mt19937_64 rng(8);
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = payload;
    if (round % 3 == 0) {
      damaged.resize(rng() % damaged.size());
    } else {
      damaged[rng() % damaged.size()] ^= static_cast<char>(1u << (rng() % 8));
    }
    for (int i = 0; i < 11; ++i) {
      const std::string tail{static_cast<char>('0' + i), '\0'};
      NameGroupPlace place;
      if (search_name_group(damaged, tail, &place) && !place.found) {
        CHECK(place.insert_at <= damaged.size());
        std::string out;
        insert_into_name_group(damaged, place.insert_at, tail, 1, &out);
      }
    }
  }
  NameGroupPlace place;
  CHECK_FALSE(search_name_group("0", std::string("1\0", 2), &place));  // shorter than a tail
  CHECK_FALSE(search_name_group(std::string("0\0\x09", 3), std::string("1\0", 2), &place));  // an id cut short
}

}  // namespace
}  // namespace datalog::store::testing
