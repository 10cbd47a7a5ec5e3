// The check byte (lmdb_store/record_check.h) is part of the file format: indexes written by
// earlier builds must still check. These bytes were computed by the first implementation (a
// zero-padded copy of each last partial word), for every length of a partial word on both sides.
#include "lmdb_store/record_check.h"

#include <array>
#include <catch2/catch.hpp>
#include <string>

namespace datalog::store {
namespace {

TEST_CASE("record_check gives the bytes of the file format for keys of 0 to 24 bytes", "[record_check]") {
  constexpr std::array<int, 25> kExpected = {212, 157, 168, 118, 146, 246, 221, 98,  110,
                                             242, 151, 113, 203, 134, 120, 3,   137, 161,
                                             241, 148, 84,  29,  119, 196, 212};
  for (int n = 0; n <= 24; ++n) {
    // key: bytes 1..n; data: bytes 200.. of length n % 10, so both sides end in every position.
    std::string key, data;
    for (int i = 0; i < n; ++i) key += static_cast<char>(i + 1);
    for (int i = 0; i < n % 10; ++i) data += static_cast<char>(200 + i);
    INFO("key length " << n << ", data length " << n % 10);
    CHECK(static_cast<int>(record_check(key, data)) == kExpected[static_cast<std::size_t>(n)]);
  }
}

TEST_CASE("record_check reads only the bytes it is given", "[record_check]") {
  // A key inside a larger buffer: the bytes around it must not change the check.
  const std::string buffer = "\xff\xff\xff\xff\xff\xff\xff\xff" "abcdefghijk" "\xee\xee\xee\xee\xee\xee\xee\xee";
  const std::string_view inside(buffer.data() + 8, 11);
  const std::string alone = "abcdefghijk";
  CHECK(record_check(inside, {}) == record_check(alone, {}));
  CHECK(record_check(inside.substr(0, 3), {}) == record_check(std::string_view(alone).substr(0, 3), {}));
}

}  // namespace
}  // namespace datalog::store
