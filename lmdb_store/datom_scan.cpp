#include "lmdb_store/datom_scan.h"
#include "lmdb_store/page_fault_guard.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "lmdb_store/catalog.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"

namespace datalog::store {

namespace {

// An LMDB cursor for the length of one fill(). The scan keeps none between calls: LMDB frees
// the cursors of a write transaction, or of a savepoint level, when it ends, so a cursor kept
// across a commit, release or rollback would be closed twice.
struct CursorForCall {
  MDB_cursor* cursor = nullptr;
  ~CursorForCall() {
    if (cursor) mdb_cursor_close(cursor);
  }
};

}  // namespace

SnapshotCursors::~SnapshotCursors() {
  for (MDB_cursor* c : cursors_) {
    if (c) mdb_cursor_close(c);
  }
}

Status SnapshotCursors::get(const GraphEnv& env, MDB_txn* snapshot, IndexId index, MDB_cursor** out) {
  MDB_cursor*& c = cursors_[static_cast<std::size_t>(index)];
  if (!c) {
    const int rc = mdb_cursor_open(snapshot, table_of(env.tables(), index), &c);
    if (rc != MDB_SUCCESS) {
      c = nullptr;
      return status_from_mdb(rc, "open index cursor");
    }
  }
  *out = c;
  return Status::OK();
}

DatomScan::~DatomScan() { close(); }

void DatomScan::close() {
  txn_ = nullptr;
  cursors_ = nullptr;
}

Status DatomScan::start(const GraphEnv& env, MDB_txn* txn, IndexId index, std::string_view start_key,
                        std::string_view end_key, const TimeView& view, ReadAhead read_ahead,
                        SnapshotCursors* cursors) {
  close();
  memo_.bytes.clear();
  cursors_ = cursors;
  env_ = &env;
  times_.emplace(txn, env.tables());
  index_ = index;
  resume_.assign(start_key);
  end_.assign(end_key);
  view_ = view;
  count_ = 0;
  pos_ = 0;
  exhausted_ = false;
  batch_ = kFirstBatch;
  max_batch_ = read_ahead == ReadAhead::Snapshot ? kMaxBatch : 1;
  return reposition(txn);
}

Status DatomScan::reposition(MDB_txn* txn) {
  txn_ = txn;
  if (times_) times_->reset(txn);
  if (pos_ >= count_) return fill();
  return Status::OK();
}

Status DatomScan::next() {
  ++pos_;
  if (pos_ < count_) return Status::OK();
  return fill();
}

Datom& DatomScan::next_slot() {
  if (count_ == ready_.size()) ready_.emplace_back();
  return ready_[count_++];
}

Status DatomScan::fill() {
  count_ = 0;
  pos_ = 0;
  if (exhausted_) return Status::OK();
  CursorForCall own;
  MDB_cursor* cursor = nullptr;
  if (cursors_) {
    DATALOG_RETURN_IF_ERROR(cursors_->get(*env_, txn_, index_, &cursor));
  } else {
    const int rc = mdb_cursor_open(txn_, table_of(env_->tables(), index_), &own.cursor);
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, "open index cursor");
    cursor = own.cursor;
  }
  MDB_val k = as_val(resume_), v;
  int rc = mdb::cursor_get(cursor, &k, &v, resume_.empty() ? MDB_FIRST : MDB_SET_RANGE);
  // One seek, then facts in key order until the batch is full: batches grow, so a scan that
  // stops at its first row reads little and a long one seeks rarely.
  const std::size_t batch = std::min(batch_, max_batch_);
  batch_ = std::min(batch_ * 2, max_batch_);
  // Keys are read in place: LMDB's pages stay put until the transaction writes or ends, which
  // cannot happen during this call. Only the last fact read is copied, to resume after it.
  std::string_view last_fact;
  // Keys arrive in strictly increasing order unless a page was damaged in place: a key that
  // does not is damage LMDB cannot see (it only compares keys when it searches).
  std::string_view previous_key;
  auto in_order = [&previous_key](std::string_view key) {
    const bool ok = key > previous_key;
    previous_key = key;
    return ok;
  };
  bool read_any = false;
  while (count_ < batch && !exhausted_) {
    if (rc == MDB_NOTFOUND) {
      exhausted_ = true;
      break;
    }
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read index");
    std::string_view key = as_view(k);
    if (!end_.empty() && key >= std::string_view(end_)) {
      exhausted_ = true;
      break;
    }
    if (!in_order(key)) return index_damage(mdb_cursor_txn(cursor), "index keys are out of order");
    const std::size_t fact_size = fact_length(key);
    if (fact_size == 0) return index_damage(mdb_cursor_txn(cursor), "an index key is malformed");
    // Read every record of this fact. The first is decoded straight into the batch, where a fact
    // with one record (the usual case) stays; a longer history is gathered in group_.
    const std::string_view fact = key.substr(0, fact_size);
    // Neighbouring facts mostly differ in their last bytes (AVET's entity, EAVT's value), so
    // those are compared first, inline; the rest only for a fact with a history.
    auto same_fact = [&fact](std::string_view next_key) {
      const std::size_t n = fact.size();
      if (next_key.size() <= n || fact_length(next_key) != n) return false;
      if (n >= 8) {
        std::uint64_t mine = 0, theirs = 0;
        std::memcpy(&mine, fact.data() + n - 8, 8);
        std::memcpy(&theirs, next_key.data() + n - 8, 8);
        if (mine != theirs) return false;
      }
      return next_key.substr(0, n) == fact;
    };
    GiantRef giant;
    Datom& first = next_slot();
    if (!decode_datom(index_, key, as_view(v), &first, &giant, &*times_, skip_values_, &memo_)) {
      --count_;
      return index_damage(mdb_cursor_txn(cursor), "an index key is malformed");
    }
    rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
    const bool alone = rc != MDB_SUCCESS || !same_fact(as_view(k));
    if (!alone) {
      group_.clear();
      group_.push_back(std::move(first));
      --count_;
      while (rc == MDB_SUCCESS && same_fact(as_view(k))) {
        if (!in_order(as_view(k))) {
          return index_damage(mdb_cursor_txn(cursor), "index keys are out of order");
        }
        if (!decode_datom(index_, as_view(k), as_view(v), &group_.emplace_back(), &giant, &*times_,
                          skip_values_, &memo_)) {
          return index_damage(mdb_cursor_txn(cursor), "an index key is malformed");
        }
        rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
      }
    }
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return status_from_mdb(rc, "read index");
    last_fact = fact;
    read_any = true;
    if (alone) {
      if (!visible_alone(first, view_)) {
        --count_;
      } else if (giant.giant) {
        DATALOG_RETURN_IF_ERROR(load_giant(txn_, env_->tables(), giant.hash, &first.v));
      }
      continue;
    }
    if (giant.giant) {
      Value full;
      DATALOG_RETURN_IF_ERROR(load_giant(txn_, env_->tables(), giant.hash, &full));
      for (Datom& d : group_) d.v = full;
    }
    ready_.resize(count_);  // a history is rare: its visible datoms are appended after the batch
    append_visible(group_, view_, ready_);
    count_ = ready_.size();
  }
  if (read_any) {
    // Resume after the last fact read. A fact whose key is all 0xFF bytes (a vaet key of
    // e = a = r = INT64_MAX) has no successor: nothing follows it, and an empty resume_ would
    // restart the scan from the first key.
    resume_.assign(last_fact);
    if (!advance_to_successor(resume_)) exhausted_ = true;
  }
  return Status::OK();
}

}  // namespace datalog::store
