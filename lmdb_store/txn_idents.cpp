#include "lmdb_store/txn_idents.h"

namespace datalog::store {

std::optional<EntityId> TxnIdents::find(const Value& name) const {
  const auto it = ids_.find(name);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

void TxnIdents::remember(const Value& name, EntityId id) {
  if (ids_.size() >= kMaxEntries) return;  // full: later lookups of name go to LMDB
  if (ids_.emplace(name, id).second) added_.push_back(name);
}

void TxnIdents::undo_to(std::size_t mark) {
  while (added_.size() > mark) {
    ids_.erase(added_.back());
    added_.pop_back();
  }
}

void TxnIdents::clear() {
  ids_.clear();
  added_.clear();
}

}  // namespace datalog::store
