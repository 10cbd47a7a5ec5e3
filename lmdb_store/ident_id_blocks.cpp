#include "lmdb_store/ident_id_blocks.h"

#include <bit>

#include "lmdb_store/key_coding.h"

namespace datalog::store {

namespace {

constexpr std::size_t kSlotsBytes = kIdsPerBlock / 8;  // a bit per slot

std::uint32_t read_slots(std::string_view payload) {
  return static_cast<std::uint32_t>(read_big_endian(payload, kSlotsBytes));
}

void put_length(std::string& out, std::size_t n) {
  while (n >= 0x80) {
    out += static_cast<char>((n & 0x7F) | 0x80);
    n >>= 7;
  }
  out += static_cast<char>(n);
}

// Reads a length at *at and steps past it and the bytes it counts; false when either runs past
// the end.
bool next_entry(std::string_view payload, std::size_t* at, std::string_view* entry) {
  std::uint64_t n = 0;
  for (int shift = 0;; shift += 7) {
    if (*at >= payload.size() || shift > 28) return false;
    const auto byte = static_cast<std::uint8_t>(payload[(*at)++]);
    n |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) break;
  }
  if (n > payload.size() - *at) return false;
  *entry = payload.substr(*at, n);
  *at += n;
  return true;
}

}  // namespace

std::string id_block_key(EntityId id) { return ordered_int_key(id >> kIdBlockBits); }

bool find_in_id_block(std::string_view payload, unsigned slot, bool* found, std::string_view* stored) {
  *found = false;
  if (payload.size() < kSlotsBytes || slot >= kIdsPerBlock) return false;
  const std::uint32_t slots = read_slots(payload);
  if (!(slots >> slot & 1)) return true;
  // The entries of the lower slots come first.
  const int before = std::popcount(slots & ((std::uint32_t{1} << slot) - 1));
  std::size_t at = kSlotsBytes;
  std::string_view entry;
  for (int i = 0; i <= before; ++i) {
    if (!next_entry(payload, &at, &entry)) return false;
  }
  *found = true;
  *stored = entry;
  return true;
}

bool add_to_id_block(std::string_view payload, unsigned slot, std::string_view stored, std::string* out) {
  if (slot >= kIdsPerBlock) return false;
  std::uint32_t slots = 0;
  if (!payload.empty()) {
    if (payload.size() < kSlotsBytes) return false;
    slots = read_slots(payload);
  }
  if (slots >> slot & 1) return false;
  // Where the new entry goes: after the entries of the lower slots. Ids are made in sequence, so
  // mostly the slot is above every other and the entry goes at the end, found without a walk.
  const std::uint32_t below = slots & ((std::uint32_t{1} << slot) - 1);
  std::size_t at = payload.empty() ? kSlotsBytes : payload.size();
  if (below != slots) {
    at = kSlotsBytes;
    std::string_view entry;
    for (int i = std::popcount(below); i > 0; --i) {
      if (!next_entry(payload, &at, &entry)) return false;
    }
  }
  out->clear();
  out->reserve(payload.size() + stored.size() + kSlotsBytes + 4);
  out->resize(kSlotsBytes);
  slots |= std::uint32_t{1} << slot;
  for (std::size_t i = 0; i < kSlotsBytes; ++i) {
    (*out)[i] = static_cast<char>(slots >> (8 * (kSlotsBytes - 1 - i)));
  }
  if (!payload.empty()) out->append(payload.substr(kSlotsBytes, at - kSlotsBytes));
  put_length(*out, stored.size());
  out->append(stored);
  if (!payload.empty()) out->append(payload.substr(at));
  return true;
}

}  // namespace datalog::store
