// Key encoding (lmdb_store/key_coding.h): memcmp order of encodings is the order of values, and
// decoding gives the value back.
#include "lmdb_store/key_coding.h"

#include <fmt/format.h>

#include <bit>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace datalog::store {
namespace {

constexpr std::uint64_t kSeed = 0x5eed'c0de'2024ULL;
constexpr int kRandomPairs = 6000;

std::string encoded(const Value& v) {
  std::string out;
  encode_value(out, v);
  return out;
}

int sign(int x) { return (x > 0) - (x < 0); }
int sign(std::strong_ordering o) { return o < 0 ? -1 : o > 0 ? 1 : 0; }
int memcmp_sign(const std::string& a, const std::string& b) { return sign(a.compare(b)); }

bool is_text(const Value& v) {
  return v.is(ValueKind::String) || v.is(ValueKind::Keyword) || v.is(ValueKind::Bytes);
}
const std::string& text_of(const Value& v) {
  return v.is(ValueKind::String)    ? v.as_string()
         : v.is(ValueKind::Keyword) ? v.as_keyword()
                                    : v.as_bytes();
}
Value text_value(ValueKind kind, std::string text) {
  switch (kind) {
    case ValueKind::String:
      return Value::string(std::move(text));
    case ValueKind::Keyword:
      return Value::keyword(std::move(text));
    default:
      return Value::bytes(std::move(text));
  }
}

// The documented exception to order preservation: two giants of one kind whose first
// kInlineLimit bytes agree sort by their hash, not by their full text.
bool giants_sharing_prefix(const Value& a, const Value& b) {
  return is_giant(a) && is_giant(b) && a.kind() == b.kind() &&
         text_of(a).compare(0, kInlineLimit, text_of(b), 0, kInlineLimit) == 0;
}

std::string show(const Value& v) {
  if (!is_text(v)) return v.is(ValueKind::Float) ? fmt::format("{:a}", v.as_float()) : v.to_edn();
  std::string hex;
  for (unsigned char c : text_of(v)) hex += fmt::format("{:02x}", c);
  return fmt::format("{}({} bytes: {})", kind_name(v.kind()), text_of(v).size(), hex);
}

// Random values of every kind, biased towards the interesting corners: shared prefixes,
// escaped bytes, the inline limit, integer and float extremes.
class RandomValues {
 public:
  explicit RandomValues(std::uint64_t seed) : rng_(seed) {
    for (int i = 0; i < 3; ++i) giant_bases_.push_back(random_bytes(kInlineLimit + 40));
  }

  Value any() { return of_kind(static_cast<ValueKind>(pick(10))); }

  Value of_kind(ValueKind kind) {
    switch (kind) {
      case ValueKind::String:
        return Value::string(text());
      case ValueKind::Integer:
        return Value::integer(integer());
      case ValueKind::Float:
        return Value::floating(floating());
      case ValueKind::Boolean:
        return Value::boolean(pick(2) == 1);
      case ValueKind::Instant:
        return Value::instant(integer());
      case ValueKind::Ref:
        return Value::ref(integer());
      case ValueKind::Uuid:
        return Value::uuid(uuid());
      case ValueKind::Keyword:
        return Value::keyword(":" + text());
      case ValueKind::Bytes:
        return Value::bytes(text());
      case ValueKind::Nil:
        return Value::nil();
    }
    return Value::nil();
  }

  // A value of v's kind close to v: a prefix or extension of its text, a neighbouring number.
  Value near(const Value& v) {
    switch (v.kind()) {
      case ValueKind::String:
      case ValueKind::Keyword:
      case ValueKind::Bytes: {
        std::string t = text_of(v);
        switch (pick(4)) {
          case 0:
            t = t.substr(0, pick(t.size() + 1));
            break;
          case 1:
            t += random_bytes(1 + pick(3));
            break;
          case 2:
            if (!t.empty()) t[pick(t.size())] = byte();
            break;
          default:
            if (t.size() > kInlineLimit) t[kInlineLimit + pick(t.size() - kInlineLimit)] = byte();
            break;
        }
        return text_value(v.kind(), std::move(t));
      }
      case ValueKind::Integer:
        return Value::integer(nudge(v.as_integer()));
      case ValueKind::Instant:
        return Value::instant(nudge(v.as_instant()));
      case ValueKind::Ref:
        return Value::ref(nudge(v.as_ref()));
      case ValueKind::Float: {
        const double d = v.as_float();
        const double to = pick(2) ? std::numeric_limits<double>::infinity()
                                  : -std::numeric_limits<double>::infinity();
        const double n = std::nextafter(d, to);
        return Value::floating(std::isnan(n) ? d : n);
      }
      case ValueKind::Uuid: {
        Uuid u = v.as_uuid();
        u.bytes[15 - pick(3)] ^= static_cast<std::uint8_t>(1 + pick(255));
        return Value::uuid(u);
      }
      default:
        return any();
    }
  }

 private:
  std::uint64_t pick(std::uint64_t n) { return n == 0 ? 0 : rng_() % n; }

  char byte() {
    // Escaped bytes, the marker byte, ASCII, the sign-bit boundary and UTF-8 lead/continuation.
    static constexpr unsigned char kAlphabet[] = {0x00, 0x01, 0x02, 0x03, 'a',  'b',
                                                  'z',  0x7F, 0x80, 0xC3, 0xA9, 0xFF};
    return static_cast<char>(kAlphabet[pick(sizeof kAlphabet)]);
  }

  std::string random_bytes(std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += byte();
    return s;
  }

  std::string text() {
    switch (pick(10)) {
      case 0:
        return "";
      case 1:
        return "h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80";  // unicode
      case 2:
      case 3:
      case 4:
        return random_bytes(1 + pick(6));
      case 5: {  // just inside the inline limit, often a prefix of a giant base
        const std::string& base = giant_bases_[pick(giant_bases_.size())];
        return base.substr(0, kInlineLimit - pick(3));
      }
      case 6:
      case 7: {  // a giant that shares its inline prefix with others
        const std::string& base = giant_bases_[pick(giant_bases_.size())];
        return base.substr(0, kInlineLimit + pick(20)) + random_bytes(1 + pick(300));
      }
      default:
        return random_bytes(kInlineLimit - 10 + pick(400));  // around and past the limit
    }
  }

  std::int64_t integer() {
    static constexpr std::int64_t kCorners[] = {std::numeric_limits<std::int64_t>::min(),
                                                std::numeric_limits<std::int64_t>::min() + 1,
                                                -256,
                                                -1,
                                                0,
                                                1,
                                                255,
                                                256,
                                                std::numeric_limits<std::int64_t>::max() - 1,
                                                std::numeric_limits<std::int64_t>::max()};
    switch (pick(3)) {
      case 0:
        return kCorners[pick(std::size(kCorners))];
      case 1:
        return static_cast<std::int64_t>(pick(2001)) - 1000;
      default:
        return static_cast<std::int64_t>(rng_());
    }
  }

  std::int64_t nudge(std::int64_t x) {
    if (pick(2) && x != std::numeric_limits<std::int64_t>::max()) return x + 1;
    if (x != std::numeric_limits<std::int64_t>::min()) return x - 1;
    return x;
  }

  double floating() {
    static constexpr double kInf = std::numeric_limits<double>::infinity();
    static constexpr double kCorners[] = {-kInf,
                                          -std::numeric_limits<double>::max(),
                                          -1.0,
                                          -std::numeric_limits<double>::min(),
                                          -std::numeric_limits<double>::denorm_min(),
                                          -0.0,
                                          0.0,
                                          std::numeric_limits<double>::denorm_min(),
                                          std::numeric_limits<double>::min(),
                                          1.0,
                                          1e300,
                                          std::numeric_limits<double>::max(),
                                          kInf};
    switch (pick(3)) {
      case 0:
        return kCorners[pick(std::size(kCorners))];
      case 1:
        return (static_cast<double>(pick(2001)) - 1000.0) / 8.0;
      default: {
        double d;
        do {
          d = std::bit_cast<double>(rng_());
        } while (std::isnan(d));  // NaN is never stored
        return d;
      }
    }
  }

  Uuid uuid() {
    Uuid u;
    // Few distinct byte values, so uuids often share long prefixes.
    for (auto& b : u.bytes) b = static_cast<std::uint8_t>(pick(3) == 0 ? rng_() : pick(2) * 0xFF);
    return u;
  }

  std::mt19937_64 rng_;
  std::vector<std::string> giant_bases_;
};

void check_decodes(const Value& v, std::int64_t trailer) {
  const std::string enc = encoded(v);
  std::string key = enc;
  put_i64(key, trailer);  // decoding must stop at the value's end inside a composite key
  const DecodedValue d = decode_value(key);
  INFO("value " << show(v));
  REQUIRE(d.ok);
  CHECK(d.length == enc.size());
  CHECK(d.value.kind() == v.kind());
  if (is_giant(v)) {
    CHECK(d.giant);
    CHECK(d.hash == giant_hash(v));
    CHECK(d.value == text_value(v.kind(), text_of(v).substr(0, kInlineLimit)));
  } else {
    CHECK_FALSE(d.giant);
    CHECK(d.value == v);
    if (v.is(ValueKind::Float) && v.as_float() != 0.0) {
      CHECK(std::bit_cast<std::uint64_t>(d.value.as_float()) ==
            std::bit_cast<std::uint64_t>(v.as_float()));
    }
  }
  CHECK(get_i64(std::string_view(key).substr(d.length)) == trailer);
}

TEST_CASE("encode_value: memcmp order of encodings equals value order for random pairs",
          "[key_coding]") {
  RandomValues gen(kSeed);
  std::mt19937_64 rng(kSeed + 1);
  int checked = 0, composite_checked = 0, giant_exceptions = 0;
  for (int i = 0; i < kRandomPairs; ++i) {
    const Value a = gen.any();
    const Value b = (rng() % 3 == 0)   ? gen.any()
                    : (rng() % 2 == 0) ? gen.near(a)
                                       : gen.of_kind(a.kind());
    const std::string ea = encoded(a), eb = encoded(b);
    INFO("a = " << show(a) << "\nb = " << show(b));
    if (giants_sharing_prefix(a, b)) {
      // The exception key_coding.h documents: same inline prefix, so the key order is the
      // order of the hashes (big-endian), and equal keys mean equal texts.
      ++giant_exceptions;
      CHECK(memcmp_sign(ea, eb) == sign(giant_hash(a) <=> giant_hash(b)));
      CHECK((ea == eb) == (a == b));
      continue;
    }
    CHECK(memcmp_sign(ea, eb) == sign(a <=> b));
    ++checked;
    // Composite keys: value then an integer keep the lexicographic order of the pair.
    const std::int64_t x = static_cast<std::int64_t>(rng() % 3) - 1;
    const std::int64_t y = static_cast<std::int64_t>(rng() % 3) - 1;
    std::string ka = ea, kb = eb;
    put_i64(ka, x);
    put_i64(kb, y);
    const int expected = (a <=> b) != 0 ? sign(a <=> b) : sign(x <=> y);
    CHECK(memcmp_sign(ka, kb) == expected);
    ++composite_checked;
  }
  // The generator must have produced every situation the test is about.
  CHECK(checked > kRandomPairs / 2);
  CHECK(composite_checked == checked);
  CHECK(giant_exceptions > 20);
}

TEST_CASE("encode_value: equal values of one kind get equal keys, pairs cover every kind",
          "[key_coding]") {
  RandomValues gen(kSeed + 2);
  for (int k = 0; k <= static_cast<int>(ValueKind::Nil); ++k) {
    const auto kind = static_cast<ValueKind>(k);
    int less = 0, greater = 0, equal = 0;
    for (int i = 0; i < 300; ++i) {
      const Value a = gen.of_kind(kind);
      const Value b = i % 2 ? gen.near(a) : gen.of_kind(kind);
      if (giants_sharing_prefix(a, b)) continue;
      const int expected = sign(a <=> b);
      INFO("kind " << kind_name(kind) << "\na = " << show(a) << "\nb = " << show(b));
      CHECK(memcmp_sign(encoded(a), encoded(b)) == expected);
      (expected < 0 ? less : expected > 0 ? greater : equal)++;
    }
    INFO("kind " << kind_name(kind));
    if (kind == ValueKind::Nil) {
      CHECK(equal > 0);
    } else {
      CHECK(less > 0);
      CHECK(greater > 0);
    }
  }
}

TEST_CASE("encode_value: kinds sort in engine/value.h's order", "[key_coding]") {
  const std::vector<Value> one_of_each = {
      Value::string("\xFF\xFF"), Value::integer(std::numeric_limits<std::int64_t>::max()),
      Value::floating(-1e308),   Value::boolean(false),
      Value::instant(-5),        Value::ref(std::numeric_limits<std::int64_t>::min()),
      Value::uuid(Uuid{}),       Value::keyword(":"),
      Value::bytes(""),          Value::nil(),
  };
  for (std::size_t i = 0; i + 1 < one_of_each.size(); ++i) {
    INFO(kind_name(one_of_each[i].kind()) << " < " << kind_name(one_of_each[i + 1].kind()));
    CHECK(one_of_each[i] < one_of_each[i + 1]);
    CHECK(encoded(one_of_each[i]) < encoded(one_of_each[i + 1]));
    CHECK(static_cast<unsigned char>(encoded(one_of_each[i])[0]) == i);
  }
}

TEST_CASE("decode_value gives back every kind, giants give their prefix and hash", "[key_coding]") {
  RandomValues gen(kSeed + 3);
  int giants = 0;
  for (int i = 0; i < 3000; ++i) {
    const Value v = gen.any();
    giants += is_giant(v);
    check_decodes(v, static_cast<std::int64_t>(i) - 1500);
  }
  CHECK(giants > 50);
}

TEST_CASE("encode_value: the inline limit, escapes and float corners", "[key_coding]") {
  const std::string at_limit(kInlineLimit, 'q');
  const Value inline_max = Value::string(at_limit);
  const Value giant = Value::string(at_limit + "a");
  CHECK_FALSE(is_giant(inline_max));
  CHECK(is_giant(giant));
  CHECK(inline_max < giant);
  CHECK(encoded(inline_max) < encoded(giant));  // every inline text sorts before its giants
  CHECK(encoded(Value::string(at_limit.substr(1) + "r")) > encoded(giant));

  // Worst case: every byte escaped, plus marker and hash.
  const Value zeros = Value::bytes(std::string(kInlineLimit + 1, '\0'));
  CHECK(encoded(zeros).size() == kMaxEncodedValue);
  check_decodes(zeros, 7);

  // 0x00 and 0x01 are escaped, and order is kept around them.
  CHECK(encoded(Value::string(std::string("a\0b", 3))) == std::string("\0a\x01\x01"
                                                                      "b\0",
                                                                      6));
  CHECK(encoded(Value::string(std::string("a\x01", 2))) == std::string("\0a\x01\x02\0", 5));
  CHECK(encoded(Value::string("a")) < encoded(Value::string(std::string("a\0", 2))));
  CHECK(encoded(Value::string(std::string("a\0", 2))) < encoded(Value::string("a\x01")));
  CHECK(encoded(Value::string("a\x01")) < encoded(Value::string("a\x02")));

  // -0.0 is 0.0; infinities are the ends of the float range.
  CHECK(encoded(Value::floating(-0.0)) == encoded(Value::floating(0.0)));
  const DecodedValue z = decode_value(encoded(Value::floating(-0.0)));
  REQUIRE(z.ok);
  CHECK_FALSE(std::signbit(z.value.as_float()));
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(encoded(Value::floating(-inf)) < encoded(Value::floating(-1e308)));
  CHECK(encoded(Value::floating(1e308)) < encoded(Value::floating(inf)));
  CHECK(encoded(Value::floating(-std::numeric_limits<double>::denorm_min())) <
        encoded(Value::floating(0.0)));
  CHECK(encoded(Value::floating(0.0)) <
        encoded(Value::floating(std::numeric_limits<double>::denorm_min())));
}

TEST_CASE("decode_value refuses malformed keys", "[key_coding]") {
  CHECK_FALSE(decode_value("").ok);
  CHECK_FALSE(decode_value(std::string(1, '\x0A')).ok);              // tag past nil
  CHECK_FALSE(decode_value(std::string("\x01\x86\x00\x00", 4)).ok);  // short integer (6 bytes said)
  CHECK_FALSE(decode_value(std::string("\x01\x90", 2)).ok);          // no integer head
  CHECK_FALSE(decode_value(std::string("\x05\x6F", 2)).ok);          // no ref head
  CHECK_FALSE(decode_value(std::string("\x06\x01\x02", 3)).ok);      // short uuid
  CHECK_FALSE(decode_value(std::string("\x00"
                                       "abc",
                                       4))
                  .ok);  // unterminated
  CHECK_FALSE(decode_value(std::string("\x00"
                                       "ab\x01",
                                       4))
                  .ok);  // dangling escape
  std::string giant_without_hash = encoded(Value::string(std::string(kInlineLimit + 1, 'x')));
  giant_without_hash.resize(giant_without_hash.size() - 3);
  CHECK_FALSE(decode_value(giant_without_hash).ok);
}

TEST_CASE("prefix_successor bounds exactly the keys that start with the prefix", "[key_coding]") {
  std::mt19937_64 rng(kSeed + 4);
  for (int i = 0; i < 500; ++i) {
    std::string prefix;
    const std::size_t n = 1 + rng() % 4;
    for (std::size_t j = 0; j < n; ++j) prefix += static_cast<char>(rng() % 3 == 0 ? 0xFF : rng());
    const std::string succ = prefix_successor(prefix);
    std::string extended = prefix;
    for (int j = 0; j < 3; ++j) extended += static_cast<char>(rng());
    INFO("prefix " << show(Value::bytes(prefix)));
    if (prefix.find_first_not_of('\xFF') == std::string::npos) {
      CHECK(succ.empty());
      continue;
    }
    CHECK(prefix < succ);
    CHECK(extended < succ);
    CHECK(extended + std::string(8, '\xFF') < succ);
    CHECK(succ.compare(0, prefix.size(), prefix) != 0);  // the successor is outside the prefix
  }
  CHECK(prefix_successor(std::string("a\xFF\xFF", 3)) == "b");
  CHECK(prefix_successor(std::string(8, '\xFF')).empty());
}

}  // namespace
}  // namespace datalog::store

namespace datalog::store {
namespace {

std::string ordered(std::int64_t x) {
  std::string out;
  put_ordered_int(out, x);
  return out;
}

// Numbers around every boundary of the ordered integer heads, and random ones of every width.
std::vector<std::int64_t> ordered_int_samples() {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  const auto base = static_cast<std::int64_t>(kIdentBase);
  std::vector<std::int64_t> xs = {kMin, kMin + 1, -1, 0, 1, kMax, kMax - 1, base - 1, base,
                                  base + 1, base + 77};
  for (int bits = 1; bits < 63; ++bits) {
    const std::int64_t p = std::int64_t{1} << bits;
    for (std::int64_t x : {p - 1, p, p + 1, -p - 1, -p, -p + 1}) xs.push_back(x);
    for (std::int64_t x : {base + p - 1, base + p, base + p + 1}) xs.push_back(x);
  }
  std::mt19937_64 random(kSeed);
  for (int i = 0; i < kRandomPairs; ++i) {
    const int width = static_cast<int>(random() % 64);
    xs.push_back(static_cast<std::int64_t>(random() >> width) * (random() % 2 ? 1 : -1));
  }
  return xs;
}

TEST_CASE("ordered ints: decode gives the number back, memcmp order is numeric order",
          "[key_coding]") {
  const std::vector<std::int64_t> xs = ordered_int_samples();
  for (std::int64_t x : xs) {
    INFO("x " << x);
    const std::string key = ordered(x);
    CHECK(key.size() == ordered_int_length(static_cast<std::uint8_t>(key[0])));
    std::int64_t back = 0;
    CHECK(get_ordered_int(key + "tail", &back) == key.size());
    CHECK(back == x);
  }
  for (std::size_t i = 0; i + 1 < xs.size(); ++i) {
    const std::int64_t a = xs[i], b = xs[i + 1];
    INFO("a " << a << " b " << b);
    CHECK(memcmp_sign(ordered(a), ordered(b)) == sign(a <=> b));
  }
}

TEST_CASE("ordered ints: small numbers and ident ids are short", "[key_coding]") {
  const auto base = static_cast<std::int64_t>(kIdentBase);
  CHECK(ordered(0).size() == 1);
  CHECK(ordered(-1).size() == 1);
  CHECK(ordered(200).size() == 2);
  CHECK(ordered(base).size() == 1);
  CHECK(ordered(base + 77).size() == 2);
  CHECK(ordered(base + 250'000).size() == 4);
  CHECK(ordered(std::numeric_limits<std::int64_t>::max()).size() == 9);
}

TEST_CASE("ordered uints: round trip and order", "[key_coding]") {
  std::vector<std::uint64_t> xs = {0, 1, 255, 256, std::numeric_limits<std::uint64_t>::max()};
  std::mt19937_64 random(kSeed);
  for (int i = 0; i < kRandomPairs; ++i) xs.push_back(random() >> (random() % 64));
  auto key = [](std::uint64_t x) {
    std::string out;
    put_ordered_uint(out, x);
    return out;
  };
  for (std::size_t i = 0; i < xs.size(); ++i) {
    std::uint64_t back = 0;
    CHECK(get_ordered_uint(key(xs[i]), &back) == key(xs[i]).size());
    CHECK(back == xs[i]);
    if (i + 1 < xs.size()) CHECK(memcmp_sign(key(xs[i]), key(xs[i + 1])) == sign(xs[i] <=> xs[i + 1]));
  }
}

TEST_CASE("ordered ints: malformed heads and short payloads are refused", "[key_coding]") {
  std::int64_t x = 0;
  CHECK(get_ordered_int("", &x) == 0);
  CHECK(get_ordered_int(std::string(1, '\x20'), &x) == 0);   // no head below 0x77
  CHECK(get_ordered_int(std::string(1, '\x91'), &x) == 0);   // no head above 0x90
  CHECK(get_ordered_int(std::string("\x86\x01", 2), &x) == 0);  // 6 bytes said, 1 given
  CHECK(get_ordered_int(std::string("\x90\xff\xff\xff\xff\xff\xff\xff\xff", 9), &x) == 0);  // > INT64_MAX
  std::uint64_t u = 0;
  CHECK(get_ordered_uint(std::string(1, '\x09'), &u) == 0);
}

}  // namespace
}  // namespace datalog::store

namespace datalog::store::testing {
namespace {

TEST_CASE("giant_hash: 16 bytes of SHA-256, so long values sharing a prefix get their own keys",
          "[key_coding]") {
  // SHA-256 of 225 'x' bytes, first 16 bytes (as sha256sum prints it).
  const Value giant = Value::string(std::string(kInlineLimit + 1, 'x'));
  CHECK(hash_hex(giant_hash(giant)) == "9c759614f882a14c8c23d485ca2f3a9d");
  const Value other = Value::string(std::string(kInlineLimit, 'x') + "y");
  CHECK(giant_hash(other) != giant_hash(giant));
  CHECK(encoded(giant) != encoded(other));
  CHECK(encoded(giant).size() == 1 + kInlineLimit + 1 + kGiantHashBytes);
  // The first format's keys: 8 bytes of FNV-1a, read with kV1GiantHashBytes.
  std::string v1_key = encoded(giant).substr(0, 1 + kInlineLimit + 1);
  const GiantHash v1 = v1_giant_hash(giant);
  v1_key.append(reinterpret_cast<const char*>(v1.data()), kV1GiantHashBytes);
  const DecodedValue d = decode_value(v1_key, kV1GiantHashBytes);
  REQUIRE(d.ok);
  CHECK(d.giant);
  CHECK(d.hash == v1);
  CHECK(d.length == v1_key.size());
}

}  // namespace
}  // namespace datalog::store::testing
