#include "lmdb_store/read_cache.h"

#include <array>
#include <atomic>

namespace datalog::store {

namespace {
std::atomic<std::uint64_t> g_next_cache_id{1};
}  // namespace

ReadCache::ReadCache() : id_(g_next_cache_id.fetch_add(1)) {}

ReadCache::ThreadCopy& ReadCache::thread_copy() const {
  thread_local ThreadCopy copy;
  if (copy.cache_id != id_) {
    copy = ThreadCopy{};
    copy.cache_id = id_;
  }
  return copy;
}

std::optional<EntityId> ReadCache::entity_of(const Value& ident) {
  return find_ident(0, ident).entity;  // committed idents hold in every state
}

ReadCache::IdentLookup ReadCache::find_ident(std::uint64_t txn_id, const Value& ident) {
  ThreadCopy& mine = thread_copy();
  if (auto it = mine.entities.find(ident); it != mine.entities.end()) return {it->second, false};
  EntityId found = 0;
  {
    std::shared_lock lock(mutex_);
    auto it = entities_.find(ident);
    if (it == entities_.end()) return {std::nullopt, txn_id == missing_txn_id_ && missing_.count(ident) > 0};
    found = it->second;
  }
  if (mine.entities.size() >= kMaxThreadIdents) mine.entities.clear();
  mine.entities.emplace(ident, found);
  return {found, false};
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
  ThreadCopy& mine = thread_copy();
  if (mine.stats_txn_id == txn_id && mine.graph_stats) return mine.graph_stats;
  std::optional<GraphStats> found;
  {
    std::shared_lock lock(mutex_);
    if (txn_id != stats_txn_id_) return std::nullopt;
    found = graph_stats_;
  }
  mine.switch_state(txn_id);
  mine.graph_stats = found;
  return found;
}

std::optional<AttributeStats> ReadCache::attribute_stats(std::uint64_t txn_id, EntityId a) {
  ThreadCopy& mine = thread_copy();
  if (mine.stats_txn_id == txn_id) {
    if (auto it = mine.attribute_stats.find(a); it != mine.attribute_stats.end()) return it->second;
  }
  std::optional<AttributeStats> found;
  {
    std::shared_lock lock(mutex_);
    if (txn_id != stats_txn_id_) return std::nullopt;
    auto it = attribute_stats_.find(a);
    if (it == attribute_stats_.end()) return std::nullopt;
    found = it->second;
  }
  mine.switch_state(txn_id);
  if (mine.attribute_stats.size() < kMaxThreadIdents) mine.attribute_stats.emplace(a, *found);
  return found;
}

bool ReadCache::unfinished_from(std::uint64_t txn_id, std::uint64_t* from) const {
  const ThreadCopy& mine = thread_copy();
  if (txn_id == 0 || mine.unfinished_txn_id != txn_id) return false;
  *from = mine.unfinished_from;
  return true;
}

void ReadCache::remember_unfinished_from(std::uint64_t txn_id, std::uint64_t from) const {
  ThreadCopy& mine = thread_copy();
  mine.unfinished_txn_id = txn_id;
  mine.unfinished_from = from;
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

namespace {

// A thread's transaction times, direct-mapped by transaction number, for one cache and one
// committed state at a time. Moving to another state or graph starts a new generation instead of
// clearing the slots, so a thread that reads two graphs in turn pays nothing for the switch.
struct ThreadTxTimes {
  struct Slot {
    std::uint64_t generation = 0, tx = 0;
    std::int64_t ms = 0;
  };
  std::uint64_t cache_id = 0, txn_id = 0, generation = 1;
  std::array<Slot, 1024> slots{};

  Slot& slot(std::uint64_t tx) { return slots[tx % slots.size()]; }
  bool holds(std::uint64_t cache, std::uint64_t state) const { return cache_id == cache && txn_id == state; }
};

ThreadTxTimes& thread_tx_times() {
  thread_local ThreadTxTimes times;
  return times;
}

}  // namespace

bool ReadCache::tx_time(std::uint64_t txn_id, std::uint64_t tx, std::int64_t* ms) const {
  ThreadTxTimes& mine = thread_tx_times();
  if (!mine.holds(id_, txn_id)) return false;
  const ThreadTxTimes::Slot& slot = mine.slot(tx);
  if (slot.generation != mine.generation || slot.tx != tx) return false;
  *ms = slot.ms;
  return true;
}

void ReadCache::remember_tx_time(std::uint64_t txn_id, std::uint64_t tx, std::int64_t ms) const {
  ThreadTxTimes& mine = thread_tx_times();
  if (!mine.holds(id_, txn_id)) {
    mine.cache_id = id_;
    mine.txn_id = txn_id;
    ++mine.generation;
  }
  mine.slot(tx) = {mine.generation, tx, ms};
}

}  // namespace datalog::store
