// lmdb_store/key_coding.h: order-preserving byte encodings for index keys.
//
// Contract
// - Byte order: every fixed-width number is big-endian. Signed integers have their sign bit
//   flipped, so memcmp order equals numeric order. Floats: non-negative values get the sign bit
//   flipped, negative values have every bit inverted (-0.0 is stored as 0.0; NaN is refused).
// - Ids, counters and times in keys are order-preserving variable-length integers
//   (put_ordered_int / put_ordered_uint): a head byte that tells the sign and the number of
//   payload bytes, then the payload big-endian in as few bytes as it needs. Small numbers take 1
//   or 2 bytes instead of 8, and memcmp order is still numeric order.
// - A value encodes as one tag byte (its ValueKind, so kinds sort in engine/value.h's order)
//   and a self-delimiting payload, so encodings can be concatenated into composite keys and the
//   memcmp order of the concatenation is the order of the components.
// - Strings, keywords and bytes escape 0x00 as 01 01 and 0x01 as 01 02 and end with 00.
//   Those longer than kInlineLimit bytes are "giants": the key holds the first kInlineLimit bytes
//   (escaped), the marker byte 02 and a 16-byte hash of the whole text (SHA-256, cut to 128
//   bits: nobody can make two texts share one, which would make two values one key); the full
//   text lives in the giants table under that hash. Every inline text sorts before every giant that extends
//   it, and giants with different prefixes sort by prefix; giants that share their first
//   kInlineLimit bytes sort by hash among themselves, so a range scan treats them as equal to
//   their prefix and the caller compares the full values.
// - Functions here allocate nothing but the output string and never throw except bad_alloc.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog::store {

inline constexpr std::size_t kInlineLimit = 224;  // raw bytes of text kept inline in a key
inline constexpr std::size_t kGiantHashBytes = 16;
inline constexpr std::size_t kMaxEncodedValue = 1 + 2 * kInlineLimit + 1 + kGiantHashBytes;  // worst case
// The hash that keys a giant. The first storage format used 8 bytes of FNV-1a (kV1GiantHashBytes),
// which the import of such graphs still reads into the front of one.
using GiantHash = std::array<std::uint8_t, kGiantHashBytes>;
inline constexpr std::size_t kV1GiantHashBytes = 8;

void put_u64(std::string& out, std::uint64_t x);
void put_i64(std::string& out, std::int64_t x);  // sign-flipped big-endian
std::uint64_t get_u64(std::string_view in);       // reads the first 8 bytes
std::int64_t get_i64(std::string_view in);

// Order-preserving variable-length integers: 1 byte (0, -1) to 9. Signed: a head byte for x < 0
// (0x7F - n, then the low n bytes of x, where ~x needs n bytes) and for x >= 0 (0x80 + n, then
// n bytes), with heads of their own for ids of the ident range: from kIdentBase (the first
// ident id, meta.h) on, only the offset from it is stored, so a graph's idents and attributes
// take 2 to 4 bytes instead of 8. Unsigned: head n, then n bytes.
inline constexpr std::uint64_t kIdentBase = std::uint64_t{1} << 52;
void put_ordered_int(std::string& out, std::int64_t x);
void put_ordered_uint(std::string& out, std::uint64_t x);
// Heads of ordered signed integers, in order. Ident ids (from kIdentBase up) are the most
// common ids and would all take 8 bytes; their own heads store only their offset from the base.
inline constexpr std::uint8_t kNegativeHead = 0x7F;     // 0x7F - n: x < 0, its low n bytes (n: 0..8)
inline constexpr std::uint8_t kNonNegativeHead = 0x80;  // 0x80 + n: 0 <= x < 2^48 in n bytes (n: 0..6)
inline constexpr std::uint8_t kBelowIdentsHead = 0x87;  // 2^48 <= x < kIdentBase: 7 bytes
inline constexpr std::uint8_t kIdentHead = 0x88;        // 0x88 + m: x - kIdentBase < 2^48 in m bytes
inline constexpr std::uint8_t kAboveIdentsHead = 0x8F;  // kIdentBase + 2^48 <= x < 2^56: 7 bytes
inline constexpr std::uint8_t kLargestHead = 0x90;      // 2^56 <= x: 8 bytes

// The decoders below are inline: a scan reads three or four ordered integers from every key.
// The length of the ordered integer whose head byte is head (0 when it is not one).
inline std::size_t ordered_int_length(std::uint8_t head) {
  if (head <= kNegativeHead) return head >= kNegativeHead - 8 ? 1 + (kNegativeHead - head) : 0;
  if (head < kBelowIdentsHead) return 1 + (head - kNonNegativeHead);
  if (head == kBelowIdentsHead || head == kAboveIdentsHead) return 8;
  if (head < kAboveIdentsHead) return 1 + (head - kIdentHead);
  return head == kLargestHead ? 9 : 0;
}
// The first n bytes of in (n <= 8, in.size() >= n), big-endian.
inline std::uint64_t read_big_endian(std::string_view in, std::size_t n) {
  std::uint64_t x = 0;
  for (std::size_t i = 0; i < n; ++i) x = (x << 8) | static_cast<std::uint8_t>(in[i]);
  return x;
}
// Read one from the front of in; return its length in bytes, 0 when it is malformed.
inline std::size_t get_ordered_int(std::string_view in, std::int64_t* x) {
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  if (in.empty()) return 0;
  const auto head = static_cast<std::uint8_t>(in[0]);
  const std::size_t length = ordered_int_length(head);
  if (length == 0 || in.size() < length) return 0;
  const std::size_t n = length - 1;
  const std::uint64_t payload = read_big_endian(in.substr(1), n);
  if (head <= kNegativeHead) {
    // The low n bytes of x; the bytes above them are all ones.
    const std::uint64_t high = n == 8 ? 0 : ~std::uint64_t{0} << (8 * n);
    const std::uint64_t bits = high | payload;
    if (!(bits & kSign)) return 0;  // not negative
    *x = static_cast<std::int64_t>(bits);
    return length;
  }
  std::uint64_t u = payload;
  if (head >= kIdentHead && head < kAboveIdentsHead) u += kIdentBase;
  if (u & kSign) return 0;  // beyond INT64_MAX
  *x = static_cast<std::int64_t>(u);
  return length;
}
// The value of kind Integer, Instant or Ref whose number is x.
inline Value integral_value(ValueKind kind, std::int64_t x) {
  return kind == ValueKind::Integer   ? Value::integer(x)
         : kind == ValueKind::Instant ? Value::instant(x)
                                      : Value::ref(x);
}
inline std::size_t get_ordered_uint(std::string_view in, std::uint64_t* x) {
  if (in.empty()) return 0;
  const auto n = static_cast<std::uint8_t>(in[0]);
  if (n > 8 || in.size() < 1u + n) return 0;
  *x = read_big_endian(in.substr(1), n);
  return 1 + n;
}
// A key (or data) that is one ordered integer, and reading one back: false unless the bytes are
// exactly one ordered integer.
std::string ordered_int_key(std::int64_t x);
bool read_ordered_int_key(std::string_view bytes, std::int64_t* x);

// True when the value's key form is a giant (its text is longer than kInlineLimit).
bool is_giant(const Value& value);
// The first 16 bytes of the SHA-256 of the text of a string, keyword or bytes value (the giant key).
GiantHash giant_hash(const Value& value);
// The first format's hash: FNV-1a over the same text, in the front 8 bytes (v1_graph_reader.cpp).
GiantHash v1_giant_hash(const Value& value);
std::string hash_hex(const GiantHash& hash, std::size_t bytes = kGiantHashBytes);

// Appends the key form of value. NaN must have been refused by the caller. Integers, instants
// and refs are ordered integers; floats 8 bytes.
void encode_value(std::string& out, const Value& value);
// The fixed-width form of a value that is not text (integers, instants and refs in 8 bytes):
// what the log's stored values use (stored_value.h), which must not change with key layouts.
void encode_fixed_value(std::string& out, const Value& value);
struct DecodedValue;
DecodedValue decode_fixed_value(std::string_view in, std::size_t giant_hash_bytes = kGiantHashBytes);

// Result of reading one encoded value from the front of a key.
struct DecodedValue {
  Value value;              // for a giant: the kInlineLimit-byte prefix, of the right kind
  bool giant = false;       // the full text must be fetched from the giants table
  GiantHash hash{};         // giant hash when giant
  std::size_t length = 0;   // bytes consumed
  bool ok = false;          // false on malformed input
};
// giant_hash_bytes: kV1GiantHashBytes only for keys of the first format.
DecodedValue decode_value(std::string_view in, std::size_t giant_hash_bytes = kGiantHashBytes);

// The tag and escaped bytes of a text kind (string, keyword, bytes) without its terminator,
// cut to kInlineLimit bytes: a prefix of the key of every value of that kind whose text starts
// with text (for range scans over text).
std::string encode_text_prefix(ValueKind kind, std::string_view text);

// Smallest key greater than every key that starts with prefix (for exclusive range ends);
// empty when no such key exists (prefix is all 0xFF).
std::string prefix_successor(std::string_view prefix);
// In place: s becomes its prefix successor; false (and s empty) when it has none.
bool advance_to_successor(std::string& s);

}  // namespace datalog::store
