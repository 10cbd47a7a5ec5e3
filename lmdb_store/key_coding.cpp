#include "lmdb_store/key_coding.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <openssl/evp.h>

namespace datalog::store {

namespace {

constexpr std::uint64_t kSignBit = 1ULL << 63;
constexpr char kTextEnd = 0x00;
constexpr char kEscape = 0x01;
constexpr char kGiantMarker = 0x02;
static_assert(kTextEnd < kEscape && kEscape < kGiantMarker, "plain_text_length finds the markers as the smallest bytes");

std::uint64_t float_bits(double d) {
  if (d == 0.0) d = 0.0;  // -0.0 sorts as 0.0
  const auto bits = std::bit_cast<std::uint64_t>(d);
  return (bits & kSignBit) ? ~bits : bits ^ kSignBit;
}

double float_from_bits(std::uint64_t bits) {
  const std::uint64_t raw = (bits & kSignBit) ? bits ^ kSignBit : ~bits;
  return std::bit_cast<double>(raw);
}

std::string_view text_of(const Value& value) {
  switch (value.kind()) {
    case ValueKind::String: return value.as_string();
    case ValueKind::Keyword: return value.as_keyword();
    case ValueKind::Bytes: return value.as_bytes();
    default: return {};
  }
}

bool is_text_kind(ValueKind kind) {
  return kind == ValueKind::String || kind == ValueKind::Keyword || kind == ValueKind::Bytes;
}

Value make_text(ValueKind kind, std::string text) {
  switch (kind) {
    case ValueKind::String: return Value::string(std::move(text));
    case ValueKind::Keyword: return Value::keyword(std::move(text));
    default: return Value::bytes(std::move(text));
  }
}

// The kinds stored as integers: an integer, instant or ref of x.
// Appends runs of plain bytes at once: most texts have no byte that needs escaping.
void put_escaped(std::string& out, std::string_view text) {
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c != kTextEnd && c != kEscape) continue;
    out.append(text.data() + run, i - run);
    const char escaped[2] = {kEscape, static_cast<char>(c + 1)};
    out.append(escaped, 2);
    run = i + 1;
  }
  out.append(text.data() + run, text.size() - run);
}

}  // namespace

void put_u64(std::string& out, std::uint64_t x) {
  // One append of 8 bytes: appending byte by byte costs a capacity check per byte.
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  char bytes[8];
  std::memcpy(bytes, &x, sizeof bytes);
  out.append(bytes, sizeof bytes);
}

void put_i64(std::string& out, std::int64_t x) {
  put_u64(out, static_cast<std::uint64_t>(x) ^ kSignBit);
}

std::uint64_t get_u64(std::string_view in) {
  std::uint64_t x = 0;
  std::memcpy(&x, in.data(), 8);  // one load and a byte swap: scans decode several per fact
  return std::endian::native == std::endian::big ? x : __builtin_bswap64(x);
}

std::int64_t get_i64(std::string_view in) { return static_cast<std::int64_t>(get_u64(in) ^ kSignBit); }

namespace {

constexpr std::uint64_t k2To48 = std::uint64_t{1} << 48;
constexpr std::uint64_t k2To56 = std::uint64_t{1} << 56;

std::size_t payload_bytes(std::uint64_t x) {
  return x == 0 ? 0 : static_cast<std::size_t>(8 - std::countl_zero(x) / 8);
}

// head, then the low n bytes of x, big-endian: one byte swap and one append (keys are built per
// datom; appending the head on its own cost a call and a capacity check more).
void put_head_and_low_bytes(std::string& out, std::uint8_t head, std::uint64_t x, std::size_t n) {
  if constexpr (std::endian::native == std::endian::little) x = __builtin_bswap64(x);
  char bytes[9];
  std::memcpy(bytes + 1, &x, 8);
  bytes[8 - n] = static_cast<char>(head);
  out.append(bytes + (8 - n), n + 1);
}

}  // namespace

void put_ordered_int(std::string& out, std::int64_t x) {
  if (x < 0) {
    const std::uint64_t complement = ~static_cast<std::uint64_t>(x);
    const std::size_t n = payload_bytes(complement);
    put_head_and_low_bytes(out, static_cast<std::uint8_t>(kNegativeHead - n), static_cast<std::uint64_t>(x), n);
    return;
  }
  const auto u = static_cast<std::uint64_t>(x);
  if (u < k2To48) {
    const std::size_t n = payload_bytes(u);
    put_head_and_low_bytes(out, static_cast<std::uint8_t>(kNonNegativeHead + n), u, n);
  } else if (u < kIdentBase) {
    put_head_and_low_bytes(out, kBelowIdentsHead, u, 7);
  } else if (u - kIdentBase < k2To48) {
    const std::size_t m = payload_bytes(u - kIdentBase);
    put_head_and_low_bytes(out, static_cast<std::uint8_t>(kIdentHead + m), u - kIdentBase, m);
  } else if (u < k2To56) {
    put_head_and_low_bytes(out, kAboveIdentsHead, u, 7);
  } else {
    put_head_and_low_bytes(out, kLargestHead, u, 8);
  }
}

void put_ordered_uint(std::string& out, std::uint64_t x) {
  const std::size_t n = payload_bytes(x);
  put_head_and_low_bytes(out, static_cast<std::uint8_t>(n), x, n);
}

std::string ordered_int_key(std::int64_t x) {
  std::string key;
  put_ordered_int(key, x);
  return key;
}

bool read_ordered_int_key(std::string_view bytes, std::int64_t* x) {
  return !bytes.empty() && get_ordered_int(bytes, x) == bytes.size();
}

bool is_giant(const Value& value) {
  return is_text_kind(value.kind()) && text_of(value).size() > kInlineLimit;
}

GiantHash giant_hash(const Value& value) {
  const std::string_view text = text_of(value);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  GiantHash hash{};
  // SHA-256 cannot fail on memory input; a failure would leave the hash zero, and the giants
  // table's check (store_giant) would then refuse the second value rather than mix them up.
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha256(), nullptr) == 1 &&
      size >= hash.size()) {
    std::memcpy(hash.data(), digest, hash.size());
  }
  return hash;
}

GiantHash v1_giant_hash(const Value& value) {
  std::uint64_t fnv = 0xcbf29ce484222325ULL;
  for (unsigned char c : text_of(value)) {
    fnv ^= c;
    fnv *= 0x100000001b3ULL;
  }
  GiantHash hash{};
  for (std::size_t i = 0; i < kV1GiantHashBytes; ++i) {
    hash[i] = static_cast<std::uint8_t>(fnv >> (8 * (kV1GiantHashBytes - 1 - i)));
  }
  return hash;
}

std::string hash_hex(const GiantHash& hash, std::size_t bytes) {
  return fmt::format("{:02x}", fmt::join(hash.begin(), hash.begin() + std::min(bytes, hash.size()), ""));
}

void encode_fixed_value(std::string& out, const Value& value) {
  std::int64_t x = 0;
  switch (value.kind()) {
    case ValueKind::Integer: x = value.as_integer(); break;
    case ValueKind::Instant: x = value.as_instant(); break;
    case ValueKind::Ref: x = value.as_ref(); break;
    default: encode_value(out, value); return;
  }
  out += static_cast<char>(value.kind());
  put_i64(out, x);
}

DecodedValue decode_fixed_value(std::string_view in, std::size_t giant_hash_bytes) {
  DecodedValue d;
  if (in.empty()) return d;
  const auto kind = static_cast<ValueKind>(in[0]);
  if (kind != ValueKind::Integer && kind != ValueKind::Instant && kind != ValueKind::Ref) {
    return decode_value(in, giant_hash_bytes);
  }
  if (in.size() < 9) return d;
  d.value = integral_value(kind, get_i64(in.substr(1)));
  d.length = 9;
  d.ok = true;
  return d;
}

void encode_value(std::string& out, const Value& value) {
  out += static_cast<char>(value.kind());
  switch (value.kind()) {
    case ValueKind::Integer: put_ordered_int(out, value.as_integer()); return;
    case ValueKind::Float: put_u64(out, float_bits(value.as_float())); return;
    case ValueKind::Boolean: out += static_cast<char>(value.as_boolean() ? 1 : 0); return;
    case ValueKind::Instant: put_ordered_int(out, value.as_instant()); return;
    case ValueKind::Ref: put_ordered_int(out, value.as_ref()); return;
    case ValueKind::Uuid:
      out.append(reinterpret_cast<const char*>(value.as_uuid().bytes.data()), 16);
      return;
    case ValueKind::Nil: return;
    case ValueKind::String:
    case ValueKind::Keyword:
    case ValueKind::Bytes: {
      const std::string_view text = text_of(value);
      if (text.size() <= kInlineLimit) {
        put_escaped(out, text);
        out += kTextEnd;
      } else {
        put_escaped(out, text.substr(0, kInlineLimit));
        out += kGiantMarker;
        const GiantHash hash = giant_hash(value);
        out.append(reinterpret_cast<const char*>(hash.data()), hash.size());
      }
      return;
    }
  }
}

namespace {

// Integers, instants and refs: an ordered integer after the tag.
bool decode_ordered(ValueKind kind, std::string_view body, DecodedValue* d) {
  std::int64_t x = 0;
  const std::size_t n = get_ordered_int(body, &x);
  if (n == 0) return false;
  d->value = integral_value(kind, x);
  d->length = 1 + n;
  return true;
}

// Most texts have no escaped byte: their length up to their end marker, found in one pass
// because the three marker bytes are the three smallest. npos for a text with an escaped byte,
// a giant or a malformed text.
std::size_t plain_text_length(std::string_view body) {
  const std::size_t limit = std::min(body.size(), kInlineLimit + 1);
  std::size_t end = 0;
  while (end < limit && static_cast<std::uint8_t>(body[end]) > static_cast<std::uint8_t>(kGiantMarker)) ++end;
  return end < limit && body[end] == kTextEnd ? end : std::string_view::npos;
}

// Any other text, from the start of body: appends its bytes, escapes undone, to *text up to its
// end marker, or a giant's kInlineLimit bytes up to its marker (then sets d's giant and hash).
// Returns the bytes read, or 0 when body is malformed.
std::size_t read_escaped_text(std::string_view body, std::size_t giant_hash_bytes, std::string* text,
                              DecodedValue* d) {
  std::size_t i = 0;
  while (i < body.size()) {
    const char c = body[i];
    if (text->size() == kInlineLimit && c == kGiantMarker) {
      if (body.size() < i + 1 + giant_hash_bytes || giant_hash_bytes > kGiantHashBytes) return 0;
      d->giant = true;
      std::memcpy(d->hash.data(), body.data() + i + 1, giant_hash_bytes);
      return i + 1 + giant_hash_bytes;
    }
    if (c == kTextEnd) return i + 1;
    if (c == kEscape) {
      if (i + 1 >= body.size()) return 0;
      *text += static_cast<char>(body[i + 1] - 1);
      i += 2;
    } else {
      *text += c;
      ++i;
    }
  }
  return 0;  // no end marker
}

// Strings, keywords and bytes: escaped text after the tag, ended by kTextEnd or, for a giant,
// by kGiantMarker and the hash.
bool decode_text(ValueKind kind, std::string_view body, std::size_t giant_hash_bytes, DecodedValue* d) {
  std::string text;
  std::size_t read = plain_text_length(body);
  if (read != std::string_view::npos) {
    text.assign(body.data(), read);
    ++read;  // the end marker
  } else {
    read = read_escaped_text(body, giant_hash_bytes, &text, d);
    if (read == 0) return false;
  }
  d->value = make_text(kind, std::move(text));
  d->length = 1 + read;
  return true;
}

}  // namespace

DecodedValue decode_value(std::string_view in, std::size_t giant_hash_bytes) {
  DecodedValue d;
  if (in.empty()) return d;
  const auto tag = static_cast<std::uint8_t>(in[0]);
  if (tag > static_cast<std::uint8_t>(ValueKind::Nil)) return d;
  const auto kind = static_cast<ValueKind>(tag);
  const std::string_view body = in.substr(1);
  auto fixed = [&](std::size_t n) { return body.size() >= n; };
  switch (kind) {
    case ValueKind::Integer:
    case ValueKind::Instant:
    case ValueKind::Ref:
      if (!decode_ordered(kind, body, &d)) return d;
      break;
    case ValueKind::Float:
      if (!fixed(8)) return d;
      d.value = Value::floating(float_from_bits(get_u64(body)));
      d.length = 9;
      break;
    case ValueKind::Boolean:
      if (!fixed(1)) return d;
      d.value = Value::boolean(body[0] != 0);
      d.length = 2;
      break;
    case ValueKind::Uuid: {
      if (!fixed(16)) return d;
      Uuid u;
      for (std::size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<std::uint8_t>(body[i]);
      d.value = Value::uuid(u);
      d.length = 17;
      break;
    }
    case ValueKind::Nil:
      d.value = Value::nil();
      d.length = 1;
      break;
    case ValueKind::String:
    case ValueKind::Keyword:
    case ValueKind::Bytes:
      if (!decode_text(kind, body, giant_hash_bytes, &d)) return d;
      break;
  }
  d.ok = true;
  return d;
}

std::string encode_text_prefix(ValueKind kind, std::string_view text) {
  std::string out(1, static_cast<char>(kind));
  put_escaped(out, text.substr(0, kInlineLimit));
  return out;
}

std::string prefix_successor(std::string_view prefix) {
  std::string s(prefix);
  advance_to_successor(s);
  return s;
}

bool advance_to_successor(std::string& s) {
  while (!s.empty()) {
    auto last = static_cast<std::uint8_t>(s.back());
    if (last != 0xFF) {
      s.back() = static_cast<char>(last + 1);
      return true;
    }
    s.pop_back();
  }
  return false;
}

}  // namespace datalog::store
