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

// Order-preserving variable-length integers: 1 byte (0, -1) to 9. Signed: a head byte for x < 0
// (0x7F - n, then the low n bytes of x, where ~x needs n bytes) and for x >= 0 (0x80 + n, then
// n bytes), with heads of their own for ids of the ident range: from kIdentBase (the first
// ident id, meta.h) on, only the offset from it is stored, so a graph's idents and attributes
// take 2 to 4 bytes instead of 8. Unsigned: head n, then n bytes.
inline constexpr std::uint64_t kIdentBase = std::uint64_t{1} << 52;
void put_ordered_int(std::string& out, std::int64_t x);
void put_ordered_uint(std::string& out, std::uint64_t x);
// Read one from the front of in; return its length in bytes, 0 when it is malformed.
std::size_t get_ordered_int(std::string_view in, std::int64_t* x);
std::size_t get_ordered_uint(std::string_view in, std::uint64_t* x);
// The length of the ordered integer whose head byte is head (0 when it is not one).
std::size_t ordered_int_length(std::uint8_t head);

// True when the value's key form is a giant (its text is longer than kInlineLimit).
bool is_giant(const Value& value);
// FNV-1a over the text of a string, keyword or bytes value (the giant key).
std::uint64_t giant_hash(const Value& value);

// Appends the key form of value. NaN must have been refused by the caller. Integers, instants
// and refs are ordered integers; floats 8 bytes.
void encode_value(std::string& out, const Value& value);
// The fixed-width form of a value that is not text (integers, instants and refs in 8 bytes):
// what the log's stored values use (stored_value.h), which must not change with key layouts.
void encode_fixed_value(std::string& out, const Value& value);
struct DecodedValue;
DecodedValue decode_fixed_value(std::string_view in);

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
