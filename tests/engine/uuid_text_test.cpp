// The 8-4-4-4-12 text form of a UUID (engine/uuid_text.h).
#include "engine/uuid_text.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <random>
#include <string>

namespace datalog {
namespace {

TEST_CASE("format_uuid then parse_uuid is the identity, parsing ignores case", "[uuid_text]") {
  std::mt19937_64 rng(0x00D1D);
  for (int i = 0; i < 2000; ++i) {
    Uuid u;
    for (auto& b : u.bytes) b = static_cast<std::uint8_t>(rng());
    const std::string text = format_uuid(u);
    INFO(text);
    REQUIRE(text.size() == 36);
    CHECK(text[8] == '-');
    CHECK(text[13] == '-');
    CHECK(text[18] == '-');
    CHECK(text[23] == '-');
    const auto back = parse_uuid(text);
    REQUIRE(back.has_value());
    CHECK(*back == u);
    std::string upper = text;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    const auto from_upper = parse_uuid(upper);
    REQUIRE(from_upper.has_value());
    CHECK(*from_upper == u);
  }
}

TEST_CASE("format_uuid: canonical lowercase text of known bytes", "[uuid_text]") {
  Uuid u;
  for (std::size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<std::uint8_t>(i * 0x11);
  CHECK(format_uuid(u) == "00112233-4455-6677-8899-aabbccddeeff");
  CHECK(format_uuid(Uuid{}) == "00000000-0000-0000-0000-000000000000");
  const auto oid = parse_uuid("6BA7B812-9DAD-11D1-80B4-00C04FD430C8");
  REQUIRE(oid.has_value());
  CHECK(oid->bytes[0] == 0x6b);
  CHECK(oid->bytes[15] == 0xc8);
  CHECK(format_uuid(*oid) == "6ba7b812-9dad-11d1-80b4-00c04fd430c8");
}

TEST_CASE("parse_uuid refuses anything but the 36-character form", "[uuid_text]") {
  for (const char* bad : {
           "",
           "00112233-4455-6677-8899-aabbccddeef",    // 35 characters
           "00112233-4455-6677-8899-aabbccddeeff0",  // 37 characters
           "00112233445566778899aabbccddeeff",       // no dashes
           "00112233-4455-6677-8899aabbccddeeff-",   // dash moved
           "0011223-34455-6677-8899-aabbccddeeff",   // dash moved into the first group
           "00112233_4455_6677_8899_aabbccddeeff",   // wrong separator
           "0011223g-4455-6677-8899-aabbccddeeff",   // not hex
           "00112233-4455-6677-8899-aabbccddee f",   // space
           "{0112233-4455-6677-8899-aabbccddeeff}",  // braces
           "-00112233-4455-6677-8899-aabbccddeef",
       }) {
    INFO("input '" << bad << "'");
    CHECK_FALSE(parse_uuid(bad).has_value());
  }
}

}  // namespace
}  // namespace datalog
