// lmdb_store/key_coding.h: order-preserving byte encodings for index keys.
//
// Contract
// - Byte order: every fixed-width number is big-endian. Signed integers have their sign bit
//   flipped, so memcmp order equals numeric order. Floats: non-negative values get the sign bit
//   flipped, negative values have every bit inverted (-0.0 is stored as 0.0; NaN is refused).
// - A value encodes as one tag byte (its ValueKind, so kinds sort in engine/value.h's order)
//   and a self-delimiting payload, so encodings can be concatenated into composite keys and the
//   memcmp order of the concatenation is the order of the components.
// - Strings, keywords and bytes escape 0x00 as 01 01 and 0x01 as 01 02 and end with 00.
//   Those longer than kInlineLimit bytes are "giants": the key holds the first kInlineLimit bytes
//   (escaped), the marker byte 02 and an 8-byte hash of the whole text; the full text lives in
//   the giants table under that hash. Every inline text sorts before every giant that extends
//   it, and giants with different prefixes sort by prefix; giants that share their first
//   kInlineLimit bytes sort by hash among themselves, so a range scan treats them as equal to
//   their prefix and the caller compares the full values.
// - Functions here allocate nothing but the output string and never throw except bad_alloc.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog::store {

inline constexpr std::size_t kInlineLimit = 224;  // raw bytes of text kept inline in a key
inline constexpr std::size_t kMaxEncodedValue = 1 + 2 * kInlineLimit + 1 + 8;  // worst case

void put_u64(std::string& out, std::uint64_t x);
void put_i64(std::string& out, std::int64_t x);  // sign-flipped big-endian
std::uint64_t get_u64(std::string_view in);       // reads the first 8 bytes
std::int64_t get_i64(std::string_view in);

// True when the value's key form is a giant (its text is longer than kInlineLimit).
bool is_giant(const Value& value);
// FNV-1a over the text of a string, keyword or bytes value (the giant key).
std::uint64_t giant_hash(const Value& value);

// Appends the key form of value. NaN must have been refused by the caller.
void encode_value(std::string& out, const Value& value);

// Result of reading one encoded value from the front of a key.
struct DecodedValue {
  Value value;              // for a giant: the kInlineLimit-byte prefix, of the right kind
  bool giant = false;       // the full text must be fetched from the giants table
  std::uint64_t hash = 0;   // giant hash when giant
  std::size_t length = 0;   // bytes consumed
  bool ok = false;          // false on malformed input
};
DecodedValue decode_value(std::string_view in);

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
