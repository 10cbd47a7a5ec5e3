#include "lmdb_store/datom_scan.h"
#include "lmdb_store/page_fault_guard.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "lmdb_store/catalog.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/record_check.h"

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

// Whether next_key is a record of fact (a key's fact part). Neighbouring facts mostly differ in
// their last bytes (AVET's entity, EAVT's value), so those are compared first, inline; the rest
// only for a fact with a history.
inline bool same_fact(std::string_view fact, std::string_view next_key) {
  const std::size_t n = fact.size();
  if (next_key.size() <= n || fact_length(next_key) != n) return false;
  if (n >= 8) {
    std::uint64_t mine = 0, theirs = 0;
    std::memcpy(&mine, fact.data() + n - 8, 8);
    std::memcpy(&theirs, next_key.data() + n - 8, 8);
    if (mine != theirs) return false;
  }
  return next_key.substr(0, n) == fact;
}

}  // namespace

// One fill()'s walk over the index: the cursor, the record it stands on and LMDB's code for
// reaching it. Keys are read in place: LMDB's pages stay put until the transaction writes or
// ends, which cannot happen during one fill().
struct DatomScan::RecordWalk {
  CursorForCall own;  // when the scan has no snapshot cursors to lend
  MDB_cursor* cursor = nullptr;
  MDB_val k{}, v{};
  int rc = MDB_SUCCESS;
  KeyOrder order;  // a key out of order is damage LMDB cannot see

  // Looked up once per walk, not per record (a thread-local and two calls of LMDB's).
  fault_detail::Slot* slot = fault_detail::this_thread_slot();
  MDB_env* env = nullptr;  // the cursor's, once it is open
  GraphEnv::SeenBounds bounds;  // the file as last seen, once the cursor is open

  std::string_view key() const { return as_view(k); }
  // mdb::cursor_get_in with its check that the record lies within the file made inline for a
  // record inside the bounds seen when the walk began.
  void step() {
    rc = guarded_in(slot, env, [this] { return mdb_cursor_get(cursor, &k, &v, MDB_NEXT); });
    if (rc == MDB_SUCCESS && !(bounds.hold(k) && bounds.hold(v)) && !fault_detail::within_file(env, &k, &v)) {
      rc = kPageFault;
    }
  }
  Status damage(std::string_view what) const { return index_damage(mdb_cursor_txn(cursor), what); }
};

SnapshotCursors::~SnapshotCursors() {
  for (MDB_cursor* c : cursors_) {
    if (c) mdb_cursor_close(c);
  }
}

Status SnapshotCursors::get(const GraphEnv& env, MDB_txn* snapshot, IndexId index, MDB_cursor** out) {
  MDB_cursor*& c = cursors_[static_cast<std::size_t>(index)];
  if (!c) {
    const int rc = mdb::cursor_open(snapshot, table_of(env.tables(), index), &c);
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
  // reposition() empties the times' cache for txn: made only for another graph's tables.
  if (!times_ || times_->tables() != &env.tables()) times_.emplace(txn, env.tables(), committed_);
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
  if (times_) times_->reset(txn, committed_);
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
  RecordWalk walk;
  DATALOG_RETURN_IF_ERROR(open_cursor(walk));
  walk.k = as_val(resume_);
  walk.rc = mdb::cursor_get_in(walk.slot, walk.env, walk.cursor, &walk.k, &walk.v,
                               resume_.empty() ? MDB_FIRST : MDB_SET_RANGE);
  if (!resume_.empty()) DATALOG_RETURN_IF_ERROR(check_landing(walk));
  // One seek, then facts in key order until the batch is full: batches grow, so a scan that
  // stops at its first row reads little and a long one seeks rarely.
  const std::size_t batch = std::min(batch_, max_batch_);
  batch_ = std::min(batch_ * 2, max_batch_);
  // Only the last fact read is copied, to resume after it (a fact part is never empty).
  std::string_view last_fact;
  while (count_ < batch && !exhausted_) {
    if (walk.rc == MDB_NOTFOUND) {
      exhausted_ = true;
      break;
    }
    if (walk.rc != MDB_SUCCESS) return status_from_mdb(walk.rc, "read index");
    if (!end_.empty() && walk.key() >= std::string_view(end_)) {
      // The key that ends the scan is checked too: a record damaged to sort later would end it.
      if (!record_intact(walk.key(), as_view(walk.v))) {
        return walk.damage("an index record is damaged");
      }
      exhausted_ = true;
      break;
    }
    DATALOG_RETURN_IF_ERROR(read_fact(walk, &last_fact));
  }
  if (!last_fact.empty()) resume_after(last_fact);
  return Status::OK();
}

// A seek lands on the first key at or after resume_, and the key before it sorts before resume_.
// LMDB trusts its branch pages: a separator key damaged in place sends the search into the wrong
// page, and the records it should have found are skipped without a sign. So the landing and its
// predecessor are checked (their order, and the predecessor's check byte), and the walk is put
// back on the landing.
Status DatomScan::check_landing(RecordWalk& walk) {
  const std::string_view target = resume_;
  if (walk.rc == MDB_SUCCESS && walk.key() < target) {
    return walk.damage("a search landed before its key");
  }
  if (walk.rc != MDB_SUCCESS && walk.rc != MDB_NOTFOUND) return Status::OK();  // fill() reports it
  const bool past_end = walk.rc == MDB_NOTFOUND;
  // The step back and the step forth in one guarded call: a point query pays for one trap.
  MDB_val before_k{}, before_v{};
  const MDB_val landing_k = walk.k, landing_v = walk.v;  // checked inside the file by the seek
  int before_rc = MDB_SUCCESS;
  MDB_cursor* c = walk.cursor;
  MDB_env* env = walk.env;
  const int rc = guarded_in(walk.slot, env, [&] {
    before_rc = mdb_cursor_get(c, &before_k, &before_v, past_end ? MDB_LAST : MDB_PREV);
    if (past_end) return MDB_NOTFOUND;  // the walk stays past the end
    // The landing is the first key: there is none before it.
    if (before_rc == MDB_NOTFOUND) return mdb_cursor_get(c, &walk.k, &walk.v, MDB_FIRST);
    if (before_rc != MDB_SUCCESS) return before_rc;
    return mdb_cursor_get(c, &walk.k, &walk.v, MDB_NEXT);
  });
  const bool back_on_landing =
      walk.k.mv_data == landing_k.mv_data && walk.k.mv_size == landing_k.mv_size &&
      walk.v.mv_data == landing_v.mv_data && walk.v.mv_size == landing_v.mv_size;
  const bool before_inside = before_rc != MDB_SUCCESS || fault_detail::within_file(env, &before_k, &before_v);
  const bool walk_inside =
      rc != MDB_SUCCESS || back_on_landing || fault_detail::within_file(env, &walk.k, &walk.v);
  if (rc == kPageFault || !before_inside || !walk_inside) {
    return status_from_mdb(kPageFault, "read index");
  }
  if (before_rc == MDB_SUCCESS) {
    if (as_view(before_k) >= target || !record_intact(as_view(before_k), as_view(before_v))) {
      return walk.damage("the key before a search's landing is damaged");
    }
  }
  if (past_end) return Status::OK();  // walk.rc stays MDB_NOTFOUND
  walk.rc = rc;
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read index");
  if (walk.key() < target) return walk.damage("a search landed before its key");
  return Status::OK();
}

Status DatomScan::open_cursor(RecordWalk& walk) {
  walk.env = mdb_txn_env(txn_);
  walk.bounds = env_->seen_bounds();
  if (cursors_) return cursors_->get(*env_, txn_, index_, &walk.cursor);
  const int rc = mdb::cursor_open(txn_, table_of(env_->tables(), index_), &walk.own.cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "open index cursor");
  walk.cursor = walk.own.cursor;
  return Status::OK();
}

// Reads every record of the fact at the walk's key, leaving the walk after them, and adds the
// fact's visible datoms to the batch; *fact is its fact part. The first record is decoded
// straight into the batch, where a fact with one record (the usual case) stays; a longer
// history is gathered in group_.
Status DatomScan::read_fact(RecordWalk& walk, std::string_view* fact) {
  const std::string_view key = walk.key();
  if (!walk.order.next(key)) return walk.damage("index keys are out of order");
  const std::size_t fact_size = fact_length(key);
  if (fact_size == 0) return walk.damage("an index key is malformed");
  *fact = key.substr(0, fact_size);
  GiantRef giant;
  Datom& first = next_slot();
  if (!decode_datom(index_, key, as_view(walk.v), &first, &giant, &*times_, skip_values_, &memo_)) {
    --count_;
    return walk.damage("an index key is malformed");
  }
  walk.step();
  const bool alone = walk.rc != MDB_SUCCESS || !same_fact(*fact, walk.key());
  if (!alone) {
    group_.clear();
    group_.push_back(std::move(first));
    --count_;
    DATALOG_RETURN_IF_ERROR(read_history(walk, *fact, &giant));
  }
  if (walk.rc != MDB_SUCCESS && walk.rc != MDB_NOTFOUND) return status_from_mdb(walk.rc, "read index");
  return alone ? keep_if_visible(first, giant) : append_visible_history(giant);
}

// Appends the fact's records after the first to group_, leaving the walk after the last.
Status DatomScan::read_history(RecordWalk& walk, std::string_view fact, GiantRef* giant) {
  while (walk.rc == MDB_SUCCESS && same_fact(fact, walk.key())) {
    if (!walk.order.next(walk.key())) return walk.damage("index keys are out of order");
    if (!decode_datom(index_, walk.key(), as_view(walk.v), &group_.emplace_back(), giant, &*times_,
                      skip_values_, &memo_)) {
      return walk.damage("an index key is malformed");
    }
    walk.step();
  }
  return Status::OK();
}

// A fact's only record, the batch's last datom, stays in the batch if it is visible, with its
// giant value loaded.
Status DatomScan::keep_if_visible(Datom& only, const GiantRef& giant) {
  if (!visible_alone(only, view_)) {
    --count_;
  } else if (giant.giant) {
    DATALOG_RETURN_IF_ERROR(load_giant(txn_, env_->tables(), giant.hash, &only.v));
  }
  return Status::OK();
}

// Appends the visible records of a history (group_) to the batch, with their giant value loaded.
Status DatomScan::append_visible_history(const GiantRef& giant) {
  if (giant.giant) {
    Value full;
    DATALOG_RETURN_IF_ERROR(load_giant(txn_, env_->tables(), giant.hash, &full));
    for (Datom& d : group_) d.v = full;
  }
  ready_.resize(count_);  // a history is rare: its visible datoms are appended after the batch
  append_visible(group_, view_, ready_);
  count_ = ready_.size();
  return Status::OK();
}

void DatomScan::resume_after(std::string_view fact) {
  // A fact whose key is all 0xFF bytes (a vaet key of e = a = r = INT64_MAX) has no successor:
  // nothing follows it, and an empty resume_ would restart the scan from the first key.
  resume_.assign(fact);
  if (!advance_to_successor(resume_)) exhausted_ = true;
}

}  // namespace datalog::store
