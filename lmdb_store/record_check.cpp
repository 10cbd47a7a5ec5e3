// The check byte (record_check.h): a multiply-xorshift mix over 8-byte words, so a record of 20
// to 30 bytes costs a few multiplications. A changed bit of any word changes every bit of the
// final state with high probability; the top byte is kept. The byte is part of the file format.
#include "lmdb_store/record_check.h"

#include <cstring>

namespace datalog::store {

namespace {

constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;

inline std::uint64_t mix_word(std::uint64_t h, std::uint64_t word) {
  h = (h ^ word) * kMul;
  return h ^ (h >> 32);
}

// Mixes bytes into h, 8 at a time; the last partial word is zero-padded (the lengths are mixed
// in separately, so padding cannot be confused with zero bytes).
std::uint64_t mix_bytes(std::uint64_t h, std::string_view bytes) {
  std::size_t at = 0;
  for (; at + 8 <= bytes.size(); at += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + at, 8);
    h = mix_word(h, word);
  }
  if (at < bytes.size()) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes.data() + at, bytes.size() - at);
    h = mix_word(h, word);
  }
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
