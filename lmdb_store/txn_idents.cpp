#include "lmdb_store/txn_idents.h"

#include <algorithm>

#include "engine/value_hash.h"

namespace datalog::store {

std::size_t TxnIdents::probe(const Value& name, std::uint64_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.position == kEmpty) return i;
    if (s.hash == hash && added_[s.position].name == name) return i;
  }
}

namespace {

// Three bit positions of the filter from one 64-bit hash, in disjoint parts of it.
constexpr unsigned kFilterShifts[] = {0, 21, 42};

}  // namespace

bool TxnIdents::may_hold(std::uint64_t hash) const {
  for (const unsigned shift : kFilterShifts) {
    const std::size_t bit = (hash >> shift) & (kFilterBits - 1);
    if ((filter_[bit / 64] >> (bit % 64) & 1) == 0) return false;
  }
  return true;
}

void TxnIdents::add_to_filter(std::uint64_t hash) {
  if (filter_.empty()) filter_.assign(kFilterBits / 64, 0);
  for (const unsigned shift : kFilterShifts) {
    const std::size_t bit = (hash >> shift) & (kFilterBits - 1);
    filter_[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
}

std::optional<EntityId> TxnIdents::find(const Value& name) const {
  if (added_.empty()) return std::nullopt;
  const std::uint64_t hash = hash_value(name);
  if (!may_hold(hash)) return std::nullopt;
  const Slot& s = slots_[probe(name, hash)];
  if (s.position == kEmpty) return std::nullopt;
  return added_[s.position].id;
}

void TxnIdents::index(std::uint32_t position, std::uint64_t hash) {
  slots_[probe(added_[position].name, hash)] = Slot{hash, position};
}

void TxnIdents::rebuild(std::size_t slots) {
  slots_.assign(slots, Slot{});
  // The filter too, from the same hashes: after an undo, the bits of forgotten names would only
  // cost probes.
  std::fill(filter_.begin(), filter_.end(), 0);
  for (std::size_t p = 0; p < added_.size(); ++p) {
    const std::uint64_t hash = hash_value(added_[p].name);
    index(static_cast<std::uint32_t>(p), hash);
    add_to_filter(hash);
  }
}

void TxnIdents::remember(const Value& name, EntityId id) {
  if (added_.size() >= kMaxEntries) return;  // full: later lookups of name go to LMDB
  if ((added_.size() + 1) * 2 > slots_.size()) rebuild(slots_.empty() ? 64 : slots_.size() * 2);
  const std::uint64_t hash = hash_value(name);
  const std::size_t at = probe(name, hash);
  if (slots_[at].position != kEmpty) return;  // known already
  added_.push_back(Entry{name, id});
  slots_[at] = Slot{hash, static_cast<std::uint32_t>(added_.size() - 1)};
  add_to_filter(hash);
}

void TxnIdents::undo_to(std::size_t mark) {
  if (mark >= added_.size()) return;
  // Open addressing cannot simply drop entries; a rollback is rare, so the table is rebuilt.
  added_.resize(mark);
  rebuild(slots_.size());
}

void TxnIdents::clear() {
  // The filter's storage stays for the next transaction; zeroing 64 KiB is cheaper than a new one.
  if (!added_.empty()) std::fill(filter_.begin(), filter_.end(), 0);
  added_.clear();
  slots_.clear();
}

}  // namespace datalog::store
