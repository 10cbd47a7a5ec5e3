#include "lmdb_store/txn_idents.h"

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

std::optional<EntityId> TxnIdents::find(const Value& name) const {
  if (added_.empty()) return std::nullopt;
  const Slot& s = slots_[probe(name, hash_value(name))];
  if (s.position == kEmpty) return std::nullopt;
  return added_[s.position].id;
}

void TxnIdents::index(std::uint32_t position, std::uint64_t hash) {
  slots_[probe(added_[position].name, hash)] = Slot{hash, position};
}

void TxnIdents::rebuild(std::size_t slots) {
  slots_.assign(slots, Slot{});
  for (std::size_t p = 0; p < added_.size(); ++p) {
    index(static_cast<std::uint32_t>(p), hash_value(added_[p].name));
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
}

void TxnIdents::undo_to(std::size_t mark) {
  if (mark >= added_.size()) return;
  // Open addressing cannot simply drop entries; a rollback is rare, so the table is rebuilt.
  added_.resize(mark);
  rebuild(slots_.size());
}

void TxnIdents::clear() {
  added_.clear();
  slots_.clear();
}

}  // namespace datalog::store
