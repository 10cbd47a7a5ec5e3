// lmdb_store/datom_scan.h: visible datoms from a key range of one index.
//
// A DatomScan walks [start, end) of one index (end empty = to the end), reads the records of
// each fact together and yields those visible in its TimeView (visibility.h), in index order.
// Giant values come back whole.
//
// Lifetimes: the scan runs on a caller-owned LMDB transaction. Datoms it yields are copies and
// outlive it. When the caller's transaction handle changes, or the transaction was written
// through since the last step (a write transaction shared with writers), call reposition() with
// the current handle: the scan re-seeks to just after the last fact it read. The scan holds no
// LMDB cursor between calls, so it may outlive the transaction (or savepoint level) it read;
// reposition() it before reading again.
// Thread safety: none; one owner.
#pragma once

#include <lmdb.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/visibility.h"

namespace datalog::store {

// One cursor per index on a read snapshot, opened on first use and closed with this object, so
// that scans of the snapshot do not open a cursor (an allocation) per batch: a closure walk starts
// a scan per node. LMDB lets a read-only transaction's cursors be closed after it ends; the owner
// must not use them after the transaction is reset or renewed.
class SnapshotCursors {
 public:
  SnapshotCursors() = default;
  ~SnapshotCursors();
  SnapshotCursors(const SnapshotCursors&) = delete;
  SnapshotCursors& operator=(const SnapshotCursors&) = delete;

  Status get(const GraphEnv& env, MDB_txn* snapshot, IndexId index, MDB_cursor** out);

 private:
  std::array<MDB_cursor*, kIndexCount> cursors_{};
};

class DatomScan {
 public:
  DatomScan() = default;
  ~DatomScan();
  DatomScan(const DatomScan&) = delete;
  DatomScan& operator=(const DatomScan&) = delete;

  // How far a scan reads ahead. Live reads one fact at a time, so a scan of a write
  // transaction sees writes made ahead of it between calls; Snapshot (for a read snapshot, or
  // a scan that finishes before anything writes) reads growing batches, seeking once per batch.
  enum class ReadAhead { Live, Snapshot };

  // Starts a scan; positions on the first visible datom (or at the end).
  // A scan may be started again: its buffers are reused.
  // With cursors (of txn, a read snapshot), batches are read through them instead of a cursor
  // opened per batch; they must outlive the scan's use.
  Status start(const GraphEnv& env, MDB_txn* txn, IndexId index, std::string_view start_key,
               std::string_view end_key, const TimeView& view, ReadAhead read_ahead = ReadAhead::Live,
               SnapshotCursors* cursors = nullptr);
  // Leaves datoms' values nil where that saves decoding them (decode_datom's skip_value); for
  // readers that never look at values. Holds for the scans started after it.
  void set_skip_values(bool skip) { skip_values_ = skip; }
  // The graph's cache of committed transaction times (read_cache.h), for scans of read
  // snapshots only; null (the default) reads them from each transaction. Holds for the scans
  // started after it.
  void set_committed_cache(const ReadCache* cache) { committed_ = cache; }
  bool at_end() const { return pos_ >= count_ && exhausted_; }
  const Datom& datom() const { return ready_[pos_]; }
  Datom& take_datom() { return ready_[pos_]; }  // for the caller to move from; next() replaces it
  Status next();
  Status reposition(MDB_txn* txn);
  void close();

 private:
  struct RecordWalk;  // one fill()'s cursor over the index (datom_scan.cpp)

  Status fill();  // reads facts until the batch has visible datoms, or the range ends
  // fill()'s steps (datom_scan.cpp). Those run for every fact are inlined into fill(), the hot
  // loop of every read, where a call per fact would cost time; a fact's history is rare.
  inline Status open_cursor(RecordWalk& walk);
  Status check_landing(RecordWalk& walk);
  [[gnu::always_inline]] inline Status read_fact(RecordWalk& walk, std::string_view* fact);
  [[gnu::always_inline]] inline Status keep_if_visible(Datom& only, const GiantRef& giant);
  Status read_history(RecordWalk& walk, std::string_view fact, GiantRef* giant);  // rare
  Status append_visible_history(const GiantRef& giant);                            // rare
  inline void resume_after(std::string_view fact);
  Datom& next_slot();  // the slot after the batch's last datom, which then joins the batch

  const GraphEnv* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  SnapshotCursors* cursors_ = nullptr;
  IndexId index_ = IndexId::Eavt;
  std::string resume_;  // first key not yet read
  std::string end_;
  TimeView view_;
  static constexpr std::size_t kFirstBatch = 4;
  static constexpr std::size_t kMaxBatch = 256;
  std::size_t batch_ = kFirstBatch;  // visible datoms the next fill() aims for
  std::size_t max_batch_ = 1;
  // The batch is ready_[0, count_). Slots past count_ keep their datoms from earlier batches, so
  // decoding into them reuses their values' kinds and buffers instead of building new ones.
  std::vector<Datom> ready_;
  std::size_t count_ = 0;
  std::vector<Datom> group_;
  std::size_t pos_ = 0;
  bool exhausted_ = false;
  bool skip_values_ = false;
  ValueMemo memo_;  // AVET scans: the last text value decoded
  std::optional<IndexTxTimes> times_;  // for records valid from their transaction's time
  const ReadCache* committed_ = nullptr;
};

}  // namespace datalog::store
