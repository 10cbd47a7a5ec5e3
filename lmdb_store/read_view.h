// lmdb_store/read_view.h: how code outside the store reads the index, without LMDB's types.
//
// - ReadSnapshot: one read snapshot of the index (an LMDB read transaction), ended when the
//   object goes. Readers that must see one state of the graph share one.
// - ReadView: the reads the SQL store table makes through one LMDB transaction — a snapshot, or
//   the open write transaction (read-your-writes) — ident lookups, transaction times, and
//   starting or re-seeking a DatomScan over key ranges that scan_plan.h chose.
// - The index's own bookkeeping, read through either: its position in the log and its owner.
// - datom_row_key / fact_of_row_key: the EAVT key that names one datom in SQL (the store
//   table's hidden `datom` column, which DELETE and UPDATE use), and back.
// Thread safety: as LMDB's transactions: one user at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "engine/datom.h"
#include "engine/value.h"
#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_scan.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/scan_plan.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/write_txn.h"

namespace datalog::store {

// Where the index stands in the log (meta.h kIndexedSeq / kIndexedTime).
struct IndexPosition {
  std::uint64_t seq = 0, time = 0;
  // The index also holds records of a transaction that never committed (meta.h
  // kUnfinishedFrom): readers' bound hides them; a writer must rebuild before it writes.
  bool unfinished = false;
};

// Who the index belongs to (meta.h kOwner*); empty when nobody claimed it yet.
struct IndexOwner {
  std::string uuid, database, table;
  std::string file;  // the database file's identity ("device:inode"): which copy of it
};

class ReadSnapshot {
 public:
  static Status begin(std::shared_ptr<GraphEnv> env, std::unique_ptr<ReadSnapshot>* out);
  // The same, shared: one allocation for the snapshot and its count (a query's hot path).
  static Status begin(std::shared_ptr<GraphEnv> env, std::shared_ptr<ReadSnapshot>* out);
  ~ReadSnapshot() { env_->end_read(txn_); }
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

  struct Key {  // lets only begin() construct one, also through std::make_shared
   private:
    Key() = default;
    friend class ReadSnapshot;
  };
  ReadSnapshot(Key, std::shared_ptr<GraphEnv> env, MDB_txn* txn) : env_(std::move(env)), txn_(txn) {}

  std::uint64_t id() const;  // the committed state it shows (LMDB's transaction id)
  Status position(IndexPosition* out) const;
  Status owner(IndexOwner* out) const;
  Status graph_stats(GraphStats* out) const;
  // The wall time of transaction tx (nullopt: not in this snapshot).
  Status tx_time(std::uint64_t tx, std::optional<std::int64_t>* ms) const;

  MDB_txn* txn() const { return txn_; }  // for the store's own code
  GraphEnv& env() const { return *env_; }

 private:
  std::shared_ptr<GraphEnv> env_;  // a snapshot keeps the graph open
  MDB_txn* txn_;
};

Status index_position(WriteTxn& w, IndexPosition* out);
Status graph_stats(WriteTxn& w, GraphStats* out);
Status write_index_owner(WriteTxn& w, const IndexOwner& owner);

class ReadView {
 public:
  ReadView() = default;
  // Reads committed state, through the graph's shared cache of committed idents.
  explicit ReadView(const ReadSnapshot& snapshot)
      : env_(&snapshot.env()), txn_(snapshot.txn()), shared_(&snapshot.env().read_cache()) {}
  // Reads what w wrote so far (its innermost savepoint level at this moment).
  explicit ReadView(WriteTxn& w) : env_(&w.env()), txn_(w.read_txn()) {}

  bool valid() const { return txn_ != nullptr; }
  bool same_transaction(const ReadView& other) const { return txn_ == other.txn_; }

  Status lookup_ident(const Value& name, std::optional<EntityId>* out) const;
  Status ident_name(EntityId id, std::optional<Value>* out) const;
  Status tx_time(std::uint64_t tx, std::optional<std::int64_t>* ms) const;
  // The last transaction whose wall time is <= ms (0 when none): `as_of` given as a time.
  Status tx_as_of_time(std::int64_t ms, std::uint64_t* tx) const;
  Status start_scan(DatomScan& scan, ScanIndex index, const KeyRange& range, const TimeView& view,
                    DatomScan::ReadAhead read_ahead) const;
  Status reposition(DatomScan& scan) const { return scan.reposition(txn_); }

 private:
  GraphEnv* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  ReadCache* shared_ = nullptr;  // only on a snapshot
};

std::string datom_row_key(const Datom& d);
// The fact a row key names, its long value loaded through w; InvalidArgument when the bytes are
// no datom key.
Status fact_of_row_key(WriteTxn& w, std::string_view key, Datom* out);

}  // namespace datalog::store
