#include "lmdb_store/read_cache.h"

namespace datalog::store {

std::optional<EntityId> ReadCache::entity_of(const Value& ident) {
  std::shared_lock lock(mutex_);
  auto it = entities_.find(ident);
  if (it == entities_.end()) return std::nullopt;
  return it->second;
}

bool ReadCache::ident_of(EntityId id, std::optional<Value>* name) {
  if (const Value* kept = names_.find(id)) {
    *name = *kept;
    return true;
  }
  std::shared_lock lock(mutex_);
  auto it = other_names_.find(id);
  if (it == other_names_.end()) return false;
  *name = it->second;
  return true;
}

void ReadCache::remember_ident(const Value& ident, EntityId id) {
  std::lock_guard lock(mutex_);
  if (entities_.size() >= kMaxIdents) entities_.clear();
  entities_.emplace(ident, id);
}

void ReadCache::remember_name(EntityId id, const Value& ident) {
  std::lock_guard lock(mutex_);
  if (names_.insert(id, ident)) return;
  if (other_names_.size() >= kMaxIdents) other_names_.clear();
  other_names_.emplace(id, ident);
}

bool ReadCache::known_missing(std::uint64_t txn_id, const Value& ident) {
  std::shared_lock lock(mutex_);
  return txn_id == missing_txn_id_ && missing_.count(ident) > 0;
}

void ReadCache::remember_missing(std::uint64_t txn_id, const Value& ident) {
  std::lock_guard lock(mutex_);
  if (txn_id != missing_txn_id_) {
    missing_txn_id_ = txn_id;
    missing_.clear();
  }
  if (missing_.size() < kMaxIdents) missing_.insert(ident);
}

void ReadCache::switch_state(std::uint64_t txn_id) {
  if (txn_id == stats_txn_id_) return;
  stats_txn_id_ = txn_id;
  graph_stats_.reset();
  attribute_stats_.clear();
}

std::optional<GraphStats> ReadCache::graph_stats(std::uint64_t txn_id) {
  std::shared_lock lock(mutex_);
  if (txn_id != stats_txn_id_) return std::nullopt;
  return graph_stats_;
}

std::optional<AttributeStats> ReadCache::attribute_stats(std::uint64_t txn_id, EntityId a) {
  std::shared_lock lock(mutex_);
  if (txn_id != stats_txn_id_) return std::nullopt;
  auto it = attribute_stats_.find(a);
  if (it == attribute_stats_.end()) return std::nullopt;
  return it->second;
}

void ReadCache::remember_graph_stats(std::uint64_t txn_id, const GraphStats& s) {
  std::lock_guard lock(mutex_);
  switch_state(txn_id);
  graph_stats_ = s;
}

void ReadCache::remember_attribute_stats(std::uint64_t txn_id, EntityId a, const AttributeStats& s) {
  std::lock_guard lock(mutex_);
  switch_state(txn_id);
  if (attribute_stats_.size() < kMaxIdents) attribute_stats_.emplace(a, s);
}

}  // namespace datalog::store
