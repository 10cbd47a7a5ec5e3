// lmdb_store/graph_access.h: the engine's storage interface (engine/storage.h) over LMDB.
//
// A GraphAccess reads through one LMDB transaction: a read snapshot, or — when it is given a
// WriteTxn — that write transaction's innermost transaction at each call (savepoints may come
// and go between calls), so it sees the transaction's own writes. Writes need a WriteTxn.
// Scans and estimates come from plan_scan (scan_plan.h), the store's one index chooser and cost
// model, with the attribute's statistics when the filter fixes one.
// Thread safety: none; one evaluation at a time. It must not outlive its transaction.
#pragma once

#include <lmdb.h>

#include <memory>
#include <unordered_map>

#include "engine/storage.h"
#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_scan.h"
#include "lmdb_store/scan_plan.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/plan_memo.h"
#include "lmdb_store/write_txn.h"

namespace datalog::store {

class FilteredScan;  // graph_access.cpp
class ReadSnapshot;  // read_view.h

// A scan kept by an owner that outlives its GraphAccess objects (a graph's session: a query
// table makes a GraphAccess per call), so that scan() starts it again with its buffers instead
// of allocating them per call. One user at a time: a scan started from inside another's
// callback makes its own.
class SpareScan {
 public:
  SpareScan();
  ~SpareScan();
  SpareScan(const SpareScan&) = delete;
  SpareScan& operator=(const SpareScan&) = delete;

 private:
  friend class GraphAccess;
  std::unique_ptr<FilteredScan> scan_;
  bool in_use_ = false;
};

class GraphAccess final : public GraphWriter {
 public:
  GraphAccess(GraphEnv& env, MDB_txn* snapshot);
  explicit GraphAccess(const ReadSnapshot& snapshot);
  GraphAccess(GraphEnv& env, WriteTxn& writer);
  ~GraphAccess() override;
  GraphAccess(const GraphAccess&) = delete;
  GraphAccess& operator=(const GraphAccess&) = delete;

  Status scan(const DatomFilter& filter, const TimeView& view,
              const std::function<bool(const Datom&)>& each) override;
  Status open_cursor(const DatomFilter& filter, const TimeView& view,
                     std::unique_ptr<DatomCursor>* out) override;
  double estimate(const DatomFilter& filter) override;
  EstimateSource estimate_source() const override;
  Status entity_of(const Value& ident, std::optional<EntityId>* out) override;
  Status ident_of(EntityId id, std::optional<Value>* out) override;
  // On a read snapshot: id's name from the graph's shared cache (read_cache.h), without a copy;
  // it stays valid while the graph is open. Null in a write transaction, when id has no name,
  // or when the cache keeps it elsewhere (then ask ident_of).
  Status shared_name(EntityId id, const Value** out);
  Status tx_as_of_time(std::int64_t ms, std::uint64_t* tx) override;
  Status tx_time(std::uint64_t tx, std::int64_t* ms) override;
  Status rules(std::vector<StoredRule>* out) override;

  // Storage v2: a read snapshot may hold transactions past the log position the caller's SQL
  // snapshot sees; reads are as of the last transaction it sees (TimeView::as_of at most tx),
  // and rules as of its last log row (seq).
  void set_visible_through(std::uint64_t tx, std::uint64_t seq) {
    visible_through_ = tx;
    rules_through_ = seq;
  }
  // scan() reuses kept's scan (it must outlive this object) instead of one of its own.
  void use_spare(SpareScan* kept) { spare_ = kept; }

  std::uint64_t tx() const override;
  std::int64_t tx_time_ms() const override;
  Status resolve_ident(const Value& ident, EntityId* out) override;
  Status assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                     std::int64_t valid_to) override;
  Status retract_fact(EntityId e, EntityId a, const Value& v, bool* stored = nullptr) override;
  Status add_rule(const StoredRule& rule) override;
  Status remove_rules(const std::string& name, int* removed) override;

 private:
  MDB_txn* txn() const { return writer_ ? writer_->read_txn() : snapshot_; }
  // For reading the catalogue (idents, transactions, rules): datom records that wait (write_txn.h)
  // need not go in first, only the ident records the writer holds back (catalog.h). They did, and
  // an import, which loads the schema by its idents for every batch, wrote its index records in
  // one small sorted run per batch.
  MDB_txn* catalog_txn() const { return writer_ ? writer_->catalog_read_txn() : snapshot_; }
  const ReadCache* committed_cache() const { return writer_ ? nullptr : &env_.read_cache(); }
  Status need_writer() const;
  const GraphStats& graph_stats();
  ScanPlan plan_for(const DatomFilter& filter);  // scan_plan.h: the index, its cost and rows
  const AttributeStats& attribute_stats(EntityId a);

  GraphEnv& env_;
  TimeView bounded(const TimeView& view) const {
    TimeView out = view;
    if (out.as_of > visible_through_) out.as_of = visible_through_;
    return out;
  }

  MDB_txn* snapshot_ = nullptr;
  WriteTxn* writer_ = nullptr;
  std::uint64_t visible_through_ = UINT64_MAX;
  std::uint64_t rules_through_ = UINT64_MAX;
  bool have_stats_ = false;
  GraphStats stats_;
  std::unordered_map<EntityId, AttributeStats> attribute_stats_;
  // The plans made by a write transaction, by the filter's shape and attribute: the join planner
  // asks for the same few estimates at every step (they rest on the statistics cached above).
  // Readers keep theirs per thread and committed state (plan_memo.h), across statements.
  PlanMemo writer_plans_;
  // Reused by consecutive scan() calls (a closure walk makes one per node), so its buffers are
  // allocated once: this object's own, or one its owner keeps across calls (use_spare).
  SpareScan own_spare_;
  SpareScan* spare_ = &own_spare_;
  SnapshotCursors snapshot_cursors_;  // used by scan() and open_cursor() on a read snapshot
};

}  // namespace datalog::store
