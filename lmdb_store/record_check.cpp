// The check byte (record_check.h): a multiply-xorshift mix over 8-byte words, so a record of 20
// to 30 bytes costs a few multiplications. A changed bit of any word changes every bit of the
// final state with high probability; the top byte is kept. The byte is part of the file format.
#include "lmdb_store/record_check.h"

#include <bit>
#include <cstring>

namespace datalog::store {

namespace {

constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t mix_word(std::uint64_t h, std::uint64_t word) {
  h = (h ^ word) * kMul;
  return h ^ (h >> 32);
}

inline std::uint64_t load_word(const char* p) {
  std::uint64_t word;
  std::memcpy(&word, p, 8);
  return word;
}

// The last rem (1 to 7) of size bytes as a word padded with zeros above them: what a copy of those
// bytes into a zeroed word gives. A copy of a variable length is a call to memcpy, which cost more
// than the rest of the check; on a little-endian machine the word ending at the last byte, shifted,
// is the same word, and bytes before the tail are read only where the input has them.
inline std::uint64_t tail_word(const char* data, std::size_t size, std::size_t rem) {
  if constexpr (std::endian::native == std::endian::little) {
    if (size >= 8) return load_word(data + size - 8) >> (8 * (8 - rem));
  }
  std::uint64_t word = 0;
  std::memcpy(&word, data + size - rem, rem);
  return word;
}

// Mixes bytes into h, 8 at a time; the last partial word is zero-padded (the lengths are mixed
// in separately, so padding cannot be confused with zero bytes).
inline std::uint64_t mix_bytes(std::uint64_t h, std::string_view bytes) {
  const std::size_t size = bytes.size();
  std::size_t at = 0;
  for (; at + 8 <= size; at += 8) h = mix_word(h, load_word(bytes.data() + at));
  if (at < size) h = mix_word(h, tail_word(bytes.data(), size, size - at));
  return h;
}

}  // namespace

std::uint8_t record_check(std::string_view key, std::string_view data) {
  std::uint64_t h = 0x243F6A8885A308D3ULL ^ (key.size() << 16) ^ data.size();
  h = mix_bytes(h, key);
  h = mix_bytes(h, data);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  return static_cast<std::uint8_t>(h >> 56);
}

}  // namespace datalog::store
