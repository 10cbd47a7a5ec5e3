// engine/eval/key_index.h: a hash index from fixed-width keys of Values to entry numbers, for
// hash joins, anti-joins and unions.
//
// Keys sit side by side in one vector and equal keys are chained through another, so building
// the index allocates a few growing buffers instead of a hash node, a key vector and a list per
// key (which dominated the profiles of joins over 10K rows). Usage: add() every entry, then
// build(), then find(). Entries with equal keys come back in the order they were added. The
// buffers come from the evaluator's large-buffer allocator: an index of 10K keys is megabytes
// that a repeated query should not fault in again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/large_buffer_allocator.h"
#include "engine/value.h"
#include "engine/value_hash.h"

namespace datalog::eval {

class KeyIndex {
 public:
  explicit KeyIndex(std::size_t width) : width_(width) {}

  std::size_t width() const { return width_; }
  std::size_t size() const { return hashes_.size(); }

  // Adds entry number size() with key (width() values).
  void add(std::span<const Value> key) {
    keys_.insert(keys_.end(), key.begin(), key.end());
    hashes_.push_back(hash_of(key));
  }

  // Makes the added entries findable; call once, after the last add().
  void build() {
    std::size_t buckets = 16;
    while (buckets < hashes_.size() * 2) buckets <<= 1;
    mask_ = buckets - 1;
    heads_.assign(buckets, kNone);
    next_.assign(hashes_.size(), kNone);
    Buffer<std::uint32_t> tails(hashes_.size(), kNone);
    for (std::uint32_t e = 0; e < hashes_.size(); ++e) {
      std::size_t b = hashes_[e] & mask_;
      while (true) {
        const std::uint32_t head = heads_[b];
        if (head == kNone) {
          heads_[b] = e;
          tails[e] = e;
          break;
        }
        if (hashes_[head] == hashes_[e] && same_key(head, entry_key(e))) {
          next_[tails[head]] = e;  // append: entries keep the order they were added in
          tails[head] = e;
          break;
        }
        b = (b + 1) & mask_;
      }
    }
  }

  // The first entry whose key equals key, or kNone; next(e) walks the others.
  std::uint32_t find(std::span<const Value> key) const {
    if (heads_.empty()) return kNone;
    const std::size_t h = hash_of(key);
    for (std::size_t b = h & mask_;; b = (b + 1) & mask_) {
      const std::uint32_t head = heads_[b];
      if (head == kNone) return kNone;
      if (hashes_[head] == h && same_key(head, key)) return head;
    }
  }
  std::uint32_t next(std::uint32_t entry) const { return next_[entry]; }
  bool contains(std::span<const Value> key) const { return find(key) != kNone; }

  static constexpr std::uint32_t kNone = 0xffffffffu;

 private:
  std::size_t hash_of(std::span<const Value> key) const {
    std::size_t h = 0x9e3779b97f4a7c15ULL;
    for (const Value& v : key) h = (h ^ hash_value(v)) * 0x100000001b3ULL + (h >> 17);
    return h;
  }
  std::span<const Value> entry_key(std::uint32_t e) const {
    return {keys_.data() + static_cast<std::size_t>(e) * width_, width_};
  }
  bool same_key(std::uint32_t e, std::span<const Value> key) const {
    const std::span<const Value> mine = entry_key(e);
    for (std::size_t i = 0; i < width_; ++i) {
      if (!(mine[i] == key[i])) return false;
    }
    return true;
  }

  template <class T>
  using Buffer = std::vector<T, LargeBufferAllocator<T>>;

  std::size_t width_;
  Buffer<Value> keys_;                // width_ values per entry
  Buffer<std::size_t> hashes_;        // per entry
  Buffer<std::uint32_t> next_;        // per entry: the next entry with an equal key
  Buffer<std::uint32_t> heads_;       // open addressing: first entry of each distinct key
  std::size_t mask_ = 0;
};

}  // namespace datalog::eval
