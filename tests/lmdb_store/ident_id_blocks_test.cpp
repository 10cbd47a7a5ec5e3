// The records of ident_ids (lmdb_store/ident_id_blocks.h): the names of 16 consecutive ids per
// record. A block is built one name at a time, in any slot order, and read back slot by slot; a
// block read from a damaged file is refused, never read past its end.
#include "lmdb_store/ident_id_blocks.h"

#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <string>

namespace datalog::store::testing {
namespace {

std::string add(const std::string& payload, unsigned slot, const std::string& stored) {
  std::string out;
  REQUIRE(add_to_id_block(payload, slot, stored, &out));
  return out;
}

void require_block(const std::string& payload, const std::map<unsigned, std::string>& names) {
  for (unsigned slot = 0; slot < kIdsPerBlock; ++slot) {
    bool found = false;
    std::string_view stored;
    REQUIRE(find_in_id_block(payload, slot, &found, &stored));
    const auto it = names.find(slot);
    INFO("slot " << slot);
    REQUIRE(found == (it != names.end()));
    if (found) CHECK(stored == it->second);
  }
}

TEST_CASE("ident id blocks: a block's key and slot come from the id") {
  CHECK(id_block_slot((EntityId{1} << 52) + 37) == 5);
  CHECK(id_block_key((EntityId{1} << 52) + 37) == id_block_key((EntityId{1} << 52) + 32));
  CHECK(id_block_key((EntityId{1} << 52) + 37) != id_block_key((EntityId{1} << 52) + 64));
  CHECK(id_block_key((EntityId{1} << 52) + 31) < id_block_key((EntityId{1} << 52) + 32));
}

TEST_CASE("ident id blocks: names added in order, out of order and of any length read back") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    std::vector<unsigned> slots(kIdsPerBlock);
    for (unsigned s = 0; s < kIdsPerBlock; ++s) slots[s] = s;
    if (round % 2) std::shuffle(slots.begin(), slots.end(), rng);
    const std::size_t count = 1 + rng() % kIdsPerBlock;
    std::string payload;
    std::map<unsigned, std::string> names;
    for (std::size_t i = 0; i < count; ++i) {
      // Lengths around the one-byte limit of a length (127) and far past it.
      const std::size_t length = std::vector<std::size_t>{0, 1, 9, 127, 128, 300, 20000}[rng() % 7];
      std::string stored(length, static_cast<char>('a' + i));
      payload = add(payload, slots[i], stored);
      names[slots[i]] = stored;
    }
    require_block(payload, names);
  }
}

TEST_CASE("ident id blocks: a slot that has a name is not given another") {
  const std::string payload = add(add("", 3, "x"), 7, "y");
  std::string out;
  CHECK_FALSE(add_to_id_block(payload, 3, "z", &out));
  CHECK_FALSE(add_to_id_block(payload, kIdsPerBlock, "z", &out));
  require_block(payload, {{3, "x"}, {7, "y"}});
}

TEST_CASE("ident id blocks: a damaged block is refused or read within its bytes") {
  std::string payload;
  for (unsigned s = 0; s < kIdsPerBlock; s += 2) payload = add(payload, s, std::string(5 + s, 'n'));
  std::mt19937_64 rng(9);
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = payload;
    if (round % 3 == 0) {
      damaged.resize(rng() % damaged.size());
    } else {
      damaged[rng() % damaged.size()] ^= static_cast<char>(1u << (rng() % 8));
    }
    for (unsigned slot = 0; slot < kIdsPerBlock; ++slot) {
      bool found = false;
      std::string_view stored;
      if (find_in_id_block(damaged, slot, &found, &stored) && found) {
        // What was found lies inside the damaged bytes (the record's check byte, which is not
        // part of these bytes, is what tells damage from a name).
        CHECK(stored.data() >= damaged.data());
        CHECK(stored.data() + stored.size() <= damaged.data() + damaged.size());
      }
      std::string out;
      (void)add_to_id_block(damaged, slot, "new", &out);
    }
  }
  bool found = true;
  std::string_view stored;
  CHECK_FALSE(find_in_id_block("a", 0, &found, &stored));  // shorter than its slots
  CHECK_FALSE(find_in_id_block(std::string("\x80\x00\xff", 3), 15, &found, &stored));  // a length past the end
}

}  // namespace
}  // namespace datalog::store::testing
