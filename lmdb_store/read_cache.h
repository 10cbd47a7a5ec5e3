// lmdb_store/read_cache.h: what readers of one graph may share across queries and threads.
//
// - Committed idents: a committed ident never changes or goes away, so once seen committed it
//   is valid for every later reader and writer. Names by id are read without a lock
//   (name_table.h). A write transaction's own new idents enter only
//   after it commits (lmdb_store/txn_idents.h): a rolled-back ident's id may go to another name.
// - Names that are no ident in one committed state: a walk over keyword values asks for the
//   entity of every value it reaches, leaves included; those misses are kept per state too.
// - Planner statistics of one committed state: LMDB gives every committed state a transaction
//   id (mdb_txn_id), so statistics read at that id hold for any snapshot with the same id.
// - Transaction times of one committed state, per thread: a record valid from its transaction's
//   time is decoded with a lookup in the transaction table, which a point query would otherwise
//   repeat on every call. Keyed by state, not by transaction alone: the number of a transaction
//   that never committed goes to the next one, with another time.
// - Where the records of an unfinished transaction begin (meta.h kUnfinishedFrom) in one committed
//   state, per thread: an ident read from LMDB is shared only below it, and a point query that
//   misses the ident cache would otherwise read it on every call.
// Thread safety: all members are safe to call from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "engine/value.h"
#include "engine/value_hash.h"
#include "lmdb_store/graph_stats.h"
#include "lmdb_store/name_table.h"

namespace datalog::store {

class ReadCache {
 public:
  ReadCache();
  ReadCache(const ReadCache&) = delete;
  ReadCache& operator=(const ReadCache&) = delete;

  // Unique in the process (a cache of another graph, or of a reopened one, has another).
  std::uint64_t id() const { return id_; }

  std::optional<EntityId> entity_of(const Value& ident);
  // Copies id's name into *name (reusing its storage) when known; false when not cached.
  bool ident_of(EntityId id, std::optional<Value>* name);
  // id's name when cached, without a lock or a copy; it stays valid while this cache lives.
  const Value* name(EntityId id) const { return names_.find(id); }
  void remember_ident(const Value& ident, EntityId id);
  void remember_name(EntityId id, const Value& ident);

  // An ident's entity in the committed state with LMDB transaction id txn_id, as far as known:
  // the entity, or "no ident there" (missing), or neither (ask LMDB). One lookup answers both,
  // so a miss takes the shared lock once.
  struct IdentLookup {
    std::optional<EntityId> entity;
    bool missing = false;
  };
  IdentLookup find_ident(std::uint64_t txn_id, const Value& ident);
  void remember_missing(std::uint64_t txn_id, const Value& ident);

  // Statistics of the committed state with LMDB transaction id txn_id, if known.
  std::optional<GraphStats> graph_stats(std::uint64_t txn_id);
  std::optional<AttributeStats> attribute_stats(std::uint64_t txn_id, EntityId a);
  void remember_graph_stats(std::uint64_t txn_id, const GraphStats& s);
  void remember_attribute_stats(std::uint64_t txn_id, EntityId a, const AttributeStats& s);

  // Transaction tx's wall time in the committed state txn_id, when this thread has read it.
  bool tx_time(std::uint64_t txn_id, std::uint64_t tx, std::int64_t* ms) const;
  void remember_tx_time(std::uint64_t txn_id, std::uint64_t tx, std::int64_t ms) const;

  // kUnfinishedFrom in the committed state txn_id, when this thread has read it.
  bool unfinished_from(std::uint64_t txn_id, std::uint64_t* from) const;
  void remember_unfinished_from(std::uint64_t txn_id, std::uint64_t from) const;

 private:
  // Bounds memory on graphs with very many idents: the maps start over when full.
  static constexpr std::size_t kMaxIdents = 1 << 20;
  void switch_state(std::uint64_t txn_id);  // caller holds mutex_

  // What one thread has read from this cache: idents and the statistics of one committed state.
  // Queries of every thread look these up at each start; even a shared lock is a write to one
  // cache line that the cores then pass back and forth, so a thread first asks its own copy.
  // Committed idents never change and statistics are keyed by state, so a copy is never stale.
  struct ThreadCopy {
    std::uint64_t cache_id = 0;  // the ReadCache copied; 0: none
    std::unordered_map<Value, EntityId, ValueHash> entities;
    std::uint64_t stats_txn_id = 0;
    std::optional<GraphStats> graph_stats;
    std::unordered_map<EntityId, AttributeStats> attribute_stats;
    std::uint64_t unfinished_txn_id = 0;  // 0: not read
    std::uint64_t unfinished_from = 0;
    // Forgets the statistics of another committed state.
    void switch_state(std::uint64_t txn_id) {
      if (txn_id == stats_txn_id) return;
      stats_txn_id = txn_id;
      graph_stats.reset();
      attribute_stats.clear();
    }
  };
  static constexpr std::size_t kMaxThreadIdents = 4096;
  ThreadCopy& thread_copy() const;  // this thread's copy, emptied when it held another cache's

  const std::uint64_t id_;  // unique in the process, for ThreadCopy::cache_id
  // Shared: lookups take the lock shared, only remembering takes it alone.
  std::shared_mutex mutex_;
  std::unordered_map<Value, EntityId, ValueHash> entities_;
  NameTable names_;
  std::unordered_map<EntityId, Value> other_names_;  // ids outside names_' range
  std::uint64_t missing_txn_id_ = 0;
  std::unordered_set<Value, ValueHash> missing_;
  std::uint64_t stats_txn_id_ = 0;
  std::optional<GraphStats> graph_stats_;
  std::unordered_map<EntityId, AttributeStats> attribute_stats_;
};

}  // namespace datalog::store
