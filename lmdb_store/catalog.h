// lmdb_store/catalog.h: the small tables beside the indexes: idents, giants, per-attribute
// statistics and the transaction log.
//
// Every function runs inside a caller-owned LMDB transaction (read-only where it only reads)
// and copies what it returns out of the map, so results outlive the transaction.
#pragma once

#include <lmdb.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/datom.h"
#include "engine/storage.h"
#include "engine/value.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/graph_stats.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::store {

// --- idents: a keyword or uuid naming an entity -------------------------------------------
Status lookup_ident(MDB_txn* txn, const Tables& t, const Value& name, std::optional<EntityId>* id);
Status ident_name(MDB_txn* txn, const Tables& t, EntityId id, std::optional<Value>* name);
// The same through a cache of committed idents: pass shared only when txn is a read snapshot
// (read_cache.h says why); null reads txn directly.
Status lookup_ident(MDB_txn* txn, const Tables& t, ReadCache* shared, const Value& name,
                    std::optional<EntityId>* id);
Status ident_name(MDB_txn* txn, const Tables& t, ReadCache* shared, EntityId id,
                  std::optional<Value>* name);
// Cursors on ident_names and ident_ids of one write transaction (one savepoint level), kept by
// the writer from one create_ident to the next, with the record each is building. Names and ids
// are mostly made in sequence: a bulk load puts ten names into one record of ident_names and 16
// into one of ident_ids, one at a time. So the record the next one goes into is mostly the one
// being built, which is held back here and put once, when the writer moves on to another record
// or flushes (flush_ident_writes): one put per record instead of one per name, and a record that
// goes in whole at the table's end fills its page. A new record mostly sorts after every other,
// and its cursor is then at the end, where an append needs no search.
struct IdentCursors {
  struct Written {
    std::string key, data;  // the record (check byte included); key empty: none
    bool pending = false;   // not in LMDB yet: put with put_flags, the cursor where it goes
    unsigned put_flags = 0;
  };
  MDB_cursor* names = nullptr;
  MDB_cursor* ids = nullptr;
  Written name_group, id_block;
  std::string scratch;  // the next record's data, swapped into place once built
  // After another transaction (a savepoint's, committed into this one) moved the cursors or
  // changed the records; nothing is held back then (a savepoint begins with a flush).
  void forget_written() { name_group.key.clear(), id_block.key.clear(); }
};
// Puts the records create_ident holds back. Call before anything else reads the ident tables
// through this transaction, and before it commits or begins a savepoint.
Status flush_ident_writes(IdentCursors* cursors);
// Returns the entity named name in *id; when it is missing, creates it with new_id and sets
// *created (the caller keeps the next-ident counter, meta_key::kNextIdent), and *at_end when its
// name went into the record the cursor was on or a new one at the table's end (no new page but
// the last).
Status create_ident(IdentCursors* cursors, const Value& name, EntityId new_id, EntityId* id,
                    bool* created, bool* at_end);

// --- giants: full text of values too long for a key ----------------------------------------
Status store_giant(MDB_txn* txn, const Tables& t, const Value& value);
// hash_bytes: kV1GiantHashBytes only for graphs of the first format, whose records end without a
// check byte (record_check.h).
Status load_giant(MDB_txn* txn, const Tables& t, const GiantHash& hash, Value* value,
                  std::size_t hash_bytes = kGiantHashBytes);

// --- statistics for planners ---------------------------------------------------------------
Status read_attribute_stats(MDB_txn* txn, const Tables& t, EntityId a, AttributeStats* out);
Status write_attribute_stats(MDB_txn* txn, const Tables& t, EntityId a, const AttributeStats& s);
Status read_graph_stats(MDB_txn* txn, const Tables& t, GraphStats* out);

// --- transaction log ------------------------------------------------------------------------
struct TxInfo {
  std::uint64_t tx = 0;
  std::int64_t time_ms = 0;
  std::uint64_t datoms = 0;
};
Status read_tx_info(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::optional<TxInfo>* out);
// Transaction times from the transaction table, for decoding keys whose vf is their
// transaction's time (datom_layout.h), with a small cache: a scan meets the records of a few
// transactions again and again. Bound to one LMDB transaction (reset() when it changes). On a
// read snapshot, give the graph's ReadCache: its times outlive the scan (a point query per call).
class IndexTxTimes final : public TxTimes {
 public:
  // committed: only when txn is a read snapshot (a write transaction's state may still go away).
  IndexTxTimes(MDB_txn* txn, const Tables& t, const ReadCache* committed = nullptr)
      : txn_(txn), t_(&t), committed_(committed), state_(committed ? mdb_txn_id(txn) : 0),
        cache_id_(committed ? committed->id() : 0) {}
  void reset(MDB_txn* txn, const ReadCache* committed = nullptr) {
    const std::uint64_t state = committed ? mdb_txn_id(txn) : 0;
    // The times read in one committed state hold for another snapshot of it: a point query
    // starts a scan per call, and clearing the slots cost more than its lookup.
    // (By the cache's id, not its address: a graph opened again may get the same address.)
    const std::uint64_t cache = committed ? committed->id() : 0;
    const bool same_state = cache != 0 && cache == cache_id_ && state == state_;
    txn_ = txn;
    committed_ = committed;
    cache_id_ = cache;
    state_ = state;
    if (!same_state) {
      slots_.fill(Slot{});
      forget_last();
    }
  }
  const Tables* tables() const { return t_; }

 private:
  bool look_up(std::uint64_t tx, std::int64_t* ms) override;
  struct Slot {
    std::uint64_t tx = 0;  // 0: empty (no datom has transaction 0)
    std::int64_t ms = 0;
  };
  MDB_txn* txn_;
  const Tables* t_;
  const ReadCache* committed_ = nullptr;
  std::uint64_t state_ = 0;  // the snapshot's committed state, for committed_
  std::uint64_t cache_id_ = 0;  // committed_'s id (ReadCache::id), 0 without one
  std::array<Slot, 64> slots_{};
};

// The last transaction whose wall time is <= time_ms (0 when none): `:as-of "ISO"`.
Status tx_as_of_time(MDB_txn* txn, const Tables& t, std::int64_t time_ms, std::uint64_t* tx);
// The datoms transaction tx recorded, in EAVT order. A scan of the whole EAVT index: for checks
// and tests (what a transaction wrote, in order, is its row of the log in SQLite).
Status read_tx_datoms(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::vector<Datom>* out);

// --- rules -------------------------------------------------------------------------------------
// Rules in the order they were added, as of log row `through` (storage v2: a rule records the
// log row that added it and the one that removed it; a removed rule is kept for older readers).
// An index holds checked records only (kChecked: any other form is damage); a version-1 graph
// file holds untagged ones (kAny, v1_graph_reader.h).
enum class RuleForms { kChecked, kAny };
Status read_rules(MDB_txn* txn, const Tables& t, std::vector<StoredRule>* out,
                  std::uint64_t through = UINT64_MAX, RuleForms forms = RuleForms::kChecked);
Status write_rule(MDB_txn* txn, const Tables& t, const StoredRule& rule, std::uint64_t log_seq);
// Marks the standing rules named name removed as of log row log_seq; *removed: how many.
Status delete_rules(MDB_txn* txn, const Tables& t, const std::string& name, std::uint64_t log_seq,
                    int* removed);

}  // namespace datalog::store
