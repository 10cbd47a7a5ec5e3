// How a log row's body is kept in SQLite (lmdb_store/log_body_codec.h): large bodies compressed,
// small ones as they are, both read back to the same records; a stored body comes from a
// database file, so damaged or forged compressed bodies are a Corrupt error naming the row.
#include "lmdb_store/log_body_codec.h"

#include <catch2/catch.hpp>
#include <random>
#include <string>

#include "lmdb_store/log_records.h"

namespace datalog::store::testing {
namespace {

// A bulk load's body: an ident and an assertion per entity, as `[:e{i} :val i]` writes them.
std::string bulk_body(int facts) {
  std::string body;
  const EntityId val = (EntityId{1} << 52) + 1;
  for (int i = 0; i < facts; ++i) {
    const EntityId e = (EntityId{1} << 52) + 2 + i;
    log_ident(body, e, Value::keyword(":e" + std::to_string(i)));
    log_assert(body, e, val, Value::integer(i), 1000, INT64_MAX, 1000);
  }
  return body;
}

std::string pack(const std::string& raw) {
  LogBodyPacker packer;
  std::string scratch;
  return std::string(packer.pack(raw, &scratch));
}

TEST_CASE("log body: a small body is kept as it is") {
  const std::string raw = bulk_body(10);
  REQUIRE(raw.size() < kMinPackedBody);
  CHECK(pack(raw) == raw);
  std::string back;
  REQUIRE(unpack_log_body(1, raw, &back).ok());
  CHECK(back == raw);
}

TEST_CASE("log body: a bulk load's body is kept in under 40% of its bytes and reads back") {
  const std::string raw = bulk_body(10'000);
  const std::string stored = pack(raw);
  CHECK(is_packed_body(stored));
  CHECK(stored.size() * 5 < raw.size() * 2);
  std::string back;
  REQUIRE(unpack_log_body(7, stored, &back).ok());
  CHECK(back == raw);
}

TEST_CASE("log body: a body that does not shrink is kept as it is") {
  std::mt19937_64 rng(5);
  std::string raw = "c";  // a record tag first, then bytes no compressor shrinks
  while (raw.size() < 8'000) raw += static_cast<char>(rng());
  CHECK(pack(raw) == raw);
}

TEST_CASE("log body: one packer compresses body after body alike") {
  LogBodyPacker packer;
  std::string a, b;
  const std::string raw = bulk_body(2'000);
  const std::string first(packer.pack(raw, &a));
  CHECK(std::string(packer.pack(raw, &b)) == first);
}

void require_damaged(const std::string& stored, const std::string& says) {
  std::string back;
  const Status st = unpack_log_body(42, stored, &back);
  REQUIRE(st.code() == StatusCode::Corrupt);
  CHECK(st.message() == "the graph's log is damaged: row 42 has a compressed body that " + says);
}

TEST_CASE("log body: a damaged compressed body is Corrupt, naming the row") {
  const std::string stored = pack(bulk_body(2'000));
  REQUIRE(is_packed_body(stored));
  SECTION("truncated") { require_damaged(stored.substr(0, stored.size() / 2), "is not one whole frame"); }
  SECTION("bytes after the frame") { require_damaged(stored + "xyz", "is not one whole frame"); }
  SECTION("no frame at all") { require_damaged("Z", "does not state its size"); }
  SECTION("a frame header that is not zstd's") { require_damaged("Zgarbage-garbage", "does not state its size"); }
}

TEST_CASE("log body: a frame that states a huge size is refused before allocating") {
  // A zstd frame header (magic, then a descriptor with an 8-byte content size) stating 2^40
  // bytes, followed by an empty raw block that ends the frame.
  std::string forged = "Z";
  forged += std::string("\x28\xb5\x2f\xfd", 4);
  forged += static_cast<char>(0xE0);  // 8-byte content size, single segment
  const unsigned long long size = 1ULL << 40;
  for (int i = 0; i < 8; ++i) forged += static_cast<char>((size >> (8 * i)) & 0xFF);
  forged += std::string("\x01\x00\x00", 3);  // last block, raw, 0 bytes
  require_damaged(forged, "states a size larger than any the log writes");
}

TEST_CASE("log body: random damage to a compressed body is always found") {
  const std::string stored = pack(bulk_body(3'000));
  std::mt19937_64 rng(11);
  for (int round = 0; round < 500; ++round) {
    std::string damaged = stored;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      damaged[1 + rng() % (damaged.size() - 1)] ^= static_cast<char>(1u << (rng() % 8));
    }
    std::string back;
    const Status st = unpack_log_body(3, damaged, &back);
    INFO("round " << round);
    CHECK(st.code() == StatusCode::Corrupt);
  }
}

}  // namespace
}  // namespace datalog::store::testing
