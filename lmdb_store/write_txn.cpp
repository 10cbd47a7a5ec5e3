// lmdb_store/write_txn.cpp: a write transaction's life: begin, savepoints, the transaction
// counter and header, commit and abort (the facts, records and log it writes: write_txn_*.cpp).
#include "lmdb_store/write_txn.h"

#include <atomic>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"
#include "lmdb_store/tx_log_format.h"

namespace datalog::store {

namespace {

constexpr auto kGrowTimeout = std::chrono::milliseconds(2'000);

// Generations are unique across all WriteTxns, so a reader can never mistake a new
// transaction for the one it last saw.
std::atomic<std::uint64_t> g_generation{0};

}  // namespace

Status WriteTxn::begin(std::shared_ptr<GraphEnv> env, std::chrono::milliseconds busy_timeout,
                       std::unique_ptr<WriteTxn>* out) {
  DATALOG_RETURN_IF_ERROR(env->acquire_writer(busy_timeout));
  std::unique_ptr<WriteTxn> w(new WriteTxn(env));
  MDB_txn* txn = nullptr;
  Status st = env->begin_write(&txn);
  if (!st.ok()) {
    env->release_writer();
    return st;
  }
  w->stack_.push_back(w->new_level(txn, -1));
  w->owner_ = std::this_thread::get_id();
  std::uint64_t last_tx = 0, last_time = 0;
  st = read_counter(txn, env->tables().meta, meta_key::kLastTx, &last_tx);
  if (st.ok()) st = read_counter(txn, env->tables().meta, meta_key::kLastTxTime, &last_time);
  if (!st.ok()) {
    w->abort();
    return st;
  }
  w->tx_ = w->first_tx_ = last_tx + 1;
  // Wall time never runs backwards across transactions, so `:as-of "ISO"` can binary search.
  w->tx_time_ms_ = std::max(now_ms(), static_cast<std::int64_t>(last_time));
  *out = std::move(w);
  return Status::OK();
}

WriteTxn::~WriteTxn() { abort(); }

std::uint64_t WriteTxn::generation() const {
  if (touched_) {
    generation_ = ++g_generation;
    touched_ = false;
  }
  return generation_;
}

void WriteTxn::abort() {
  if (stack_.empty()) return;
  if (std::this_thread::get_id() != owner_) {
    // LMDB's writer lock can only be released by the thread that took it: leave the aborted
    // transaction for that thread to end (GraphEnv::acquire_writer), keeping the graph locked.
    env_->orphan_write(stack_.front().txn, owner_);
  } else {
    // Aborting the root aborts its open children too.
    mdb_txn_abort(stack_.front().txn);
    env_->leave_txn();
    env_->release_writer();
  }
  stack_.clear();
  discard_pending();
  txn_idents_.clear();
  log_rows_.clear();
  touch();
}

Status WriteTxn::fail(Status st) {
  abort();
  if (st.code() == StatusCode::MapFull) {
    const Status grown = env_->grow_map(kGrowTimeout);
    st = Status(grown.ok() ? StatusCode::MapGrown : StatusCode::Full,
                grown.ok() ? fmt::format("graph '{}' map was full; it has been grown to {} MiB. "
                                         "The transaction was rolled back: run it again",
                                         env_->path(), env_->map_bytes() >> 20)
                           : fmt::format("graph '{}' map is full and could not grow: {}",
                                         env_->path(), grown.message()));
  }
  failure_ = st;
  return st;
}

void WriteTxn::discard_pending() {
  for (DeferredIndex& d : deferred_) {
    d.bytes.clear();
    d.records.clear();
  }
  deferred_bytes_ = 0;
  next_ident_ = 0;  // LMDB's counter is right again once the unflushed part is gone
  next_ident_dirty_ = false;
  pending_stats_.clear();
  pending_records_ = 0;
  pending_entities_ = 0;
}

Status WriteTxn::savepoint(int level) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  if (stack_.back().savepoint >= level) return Status::OK();  // already open
  Status st = flush_pending();
  if (!st.ok()) return fail(st);
  MDB_txn* child = nullptr;
  const int rc = mdb_txn_begin(env_->env(), txn(), 0, &child);
  if (rc != MDB_SUCCESS) return fail(status_from_mdb(rc, "begin savepoint"));
  stack_.push_back(new_level(child, level));
  touch();
  return Status::OK();
}

Status WriteTxn::release(int level) {
  if (!failure_.ok()) return failure_;
  if (stack_.size() <= 1 || stack_.back().savepoint < level) return Status::OK();
  Status st = flush_pending();
  if (!st.ok()) return fail(st);
  while (stack_.size() > 1 && stack_.back().savepoint >= level) {
    const int rc = mdb::txn_commit(stack_.back().txn);
    stack_.pop_back();
    if (rc != MDB_SUCCESS) return fail(status_from_mdb(rc, "release savepoint"));
  }
  // The savepoint's writes are this level's now, and LMDB has moved its cursors where the
  // savepoint's were.
  stack_.back().idents.forget_written();
  touch();
  return Status::OK();
}

Status WriteTxn::rollback_to(int level) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status::OK();
  if (level < 0) return rollback_all();
  if (stack_.size() <= 1 || stack_.back().savepoint < level) return Status::OK();
  discard_pending();
  Level restored{};
  while (stack_.size() > 1 && stack_.back().savepoint >= level) {
    restored = stack_.back();
    mdb_txn_abort(stack_.back().txn);
    stack_.pop_back();
  }
  datom_count_ = restored.datoms_at_start;
  header_tx_ = 0;  // the header may have gone with the savepoint: written again when needed
  elided_count_ = restored.elided_at_start;
  dirty_ = restored.dirty_at_start;
  txn_idents_.undo_to(restored.idents_at_start);
  log_rows_.resize(restored.log_rows_at_start);
  if (!log_rows_.empty()) {
    log_rows_.back().body.resize(restored.log_bytes_at_start);
    log_rows_.back().consumes_tx = restored.log_consumes_at_start;
  }
  touch();
  // ROLLBACK TO leaves the savepoint open: begin it again.
  MDB_txn* child = nullptr;
  const int rc = mdb_txn_begin(env_->env(), txn(), 0, &child);
  if (rc != MDB_SUCCESS) return fail(status_from_mdb(rc, "restart savepoint"));
  stack_.push_back(new_level(child, level));
  return Status::OK();
}

Status WriteTxn::rollback_all() {
  // SQLite rolls back to its transaction savepoint (SAVEPOINT outside BEGIN): undo everything
  // and go on in a fresh transaction, keeping the writer locks and the transaction counter.
  if (std::this_thread::get_id() != owner_) {
    return Status(StatusCode::Misuse,
                  "a graph transaction must be rolled back on the thread that began it");
  }
  if (interim_commits_ > 0) {
    // Part of it is committed to the index: what remains to undo is the whole transaction.
    abort();
    failure_ = Status(StatusCode::Misuse,
                      fmt::format("graph '{}': this transaction committed part of its index and cannot "
                                  "go on after a rollback to its start; it was rolled back whole, and the "
                                  "next write rebuilds the index from the log",
                                  env_->path()));
    return failure_;
  }
  mdb_txn_abort(stack_.front().txn);
  stack_.clear();
  discard_pending();
  txn_idents_.clear();
  log_rows_.clear();
  datom_count_ = 0;
  elided_count_ = 0;
  dirty_ = false;
  retracted_ = false;
  tx_ = first_tx_;
  header_tx_ = 0;
  sealed_ = false;
  touch();
  MDB_txn* txn = nullptr;
  const int rc = mdb_txn_begin(env_->env(), nullptr, 0, &txn);
  if (rc != MDB_SUCCESS) {
    env_->leave_txn();
    env_->release_writer();
    failure_ = status_from_mdb(rc, "restart the transaction");
    return failure_;
  }
  stack_.push_back(new_level(txn, -1));
  return Status::OK();
}

Status WriteTxn::seal_transaction() {
  if (datom_count_ == 0 && elided_count_ == 0) return Status::OK();
  const Tables& t = env_->tables();
  DATALOG_RETURN_IF_ERROR(write_tx_header(datom_count_));
  DATALOG_RETURN_IF_ERROR(write_counter(txn(), t.meta, meta_key::kLastTx, tx_));
  return write_counter(txn(), t.meta, meta_key::kLastTxTime, static_cast<std::uint64_t>(tx_time_ms_));
}

Status WriteTxn::write_tx_header(std::uint64_t datoms) {
  std::string header;
  put_i64(header, tx_time_ms_);
  put_u64(header, datoms);
  const std::string key = tx_header_key(tx_);
  append_record_check(header, key);
  MDB_val k = as_val(key), v = as_val(header);
  return status_from_mdb(mdb::put(txn(), env_->tables().txlog, &k, &v, 0), "write transaction log");
}

std::int64_t WriteTxn::time_of_tx(std::uint64_t tx) {
  if (tx == tx_) return tx_time_ms_;
  std::optional<TxInfo> info;
  if (!read_tx_info(txn(), env_->tables(), tx, &info).ok() || !info) return kUnknownTxTime;
  return info->time_ms;
}

bool WriteTxn::OwnTxTimes::look_up(std::uint64_t tx, std::int64_t* ms) {
  *ms = w_.time_of_tx(tx);
  return *ms != kUnknownTxTime;
}

Status WriteTxn::next_transaction() {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  if (stack_.size() > 1) return Status(StatusCode::Misuse, "next_transaction() inside a savepoint");
  if (!dirty_) return Status::OK();
  sealed_ = true;
  // Rules alone consume no counter (as at commit): the next command keeps this one.
  if (datom_count_ == 0 && elided_count_ == 0) return Status::OK();
  Status st = flush_pending();
  if (st.ok()) st = seal_transaction();
  if (!st.ok()) return fail(st);
  ++tx_;
  tx_time_ms_ = std::max(now_ms(), tx_time_ms_);
  datom_count_ = 0;
  elided_count_ = 0;
  dirty_ = false;
  retracted_ = false;
  touch();
  return Status::OK();
}

void WriteTxn::count_put(bool appended, std::size_t bytes) {
  constexpr std::size_t kNodeBytes = 10;  // LMDB's node header and slot
  ++puts_;
  if (appended) {
    appended_bytes_ += bytes + kNodeBytes;
  } else {
    ++placed_puts_;
  }
}

std::size_t WriteTxn::dirty_estimate() {
  std::size_t placed_pages = placed_puts_;
  if (placed_pages > 0 && !stack_.empty()) {
    // Puts into the middle of a table dirty at most every page it has: in a small index most of
    // them land on pages an earlier put dirtied already.
    const Tables& t = env_->tables();
    std::size_t pages = 0;
    for (MDB_dbi dbi : {t.eavt, t.aevt, t.avet, t.vaet, t.ident_names}) {
      MDB_stat stat{};
      if (mdb::stat(txn(), dbi, &stat) == MDB_SUCCESS) pages += stat.ms_branch_pages + stat.ms_leaf_pages;
    }
    placed_pages = std::min(placed_pages, pages);
  }
  return appended_bytes_ + placed_pages * kPage;
}

bool WriteTxn::past_dirty_bound(std::size_t bytes) {
  if (appended_bytes_ + placed_puts_ * kPage < bytes) return false;  // an upper bound of the estimate
  if (puts_ - puts_at_estimate_ < kPutsPerEstimate) return false;
  puts_at_estimate_ = puts_;
  return dirty_estimate() >= bytes;
}

// The first ident id the unfinished transaction may have made: ids from there on are not shared
// by readers (catalog_idents.cpp) until the transaction commits.
Status WriteTxn::mark_unfinished() {
  std::uint64_t first = static_cast<std::uint64_t>(first_new_ident_);
  if (first == 0) {
    DATALOG_RETURN_IF_ERROR(read_counter(txn(), env_->tables().meta, meta_key::kNextIdent, &first));
  }
  return write_counter(txn(), env_->tables().meta, meta_key::kUnfinishedFrom, std::max(first, kFirstIdentId));
}

Status WriteTxn::commit_interim() {
  if (!failure_.ok()) return failure_;
  if (stack_.size() != 1) return Status(StatusCode::Misuse, "commit_interim() with a savepoint open");
  if (std::this_thread::get_id() != owner_) {
    return Status(StatusCode::Misuse, "a graph transaction must be committed on the thread that began it");
  }
  Status st = flush_pending();
  if (st.ok() && interim_commits_ == 0) st = mark_unfinished();
  if (st.ok()) st = env_->before_commit();
  if (!st.ok()) return fail(st);
  // The writer gate stays held: no other writer can begin between the two LMDB transactions.
  const int rc = mdb::txn_commit(stack_.front().txn);
  stack_.clear();
  env_->leave_txn();
  ++interim_commits_;
  appended_bytes_ = placed_puts_ = 0;
  puts_at_estimate_ = puts_;
  touch();
  MDB_txn* next = nullptr;
  st = rc == MDB_SUCCESS ? env_->begin_write(&next)
                         : status_from_mdb(rc, fmt::format("commit part of a transaction to graph '{}'", env_->path()));
  if (!st.ok()) {
    env_->release_writer();
    discard_pending();
    txn_idents_.clear();
    log_rows_.clear();
    failure_ = st;
    return failure_;
  }
  stack_.push_back(new_level(next, -1));
  return Status::OK();
}

Status WriteTxn::commit() {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  if (std::this_thread::get_id() != owner_) {
    return Status(StatusCode::Misuse,
                  "a graph transaction must be committed on the thread that began it");
  }
  if (!dirty_ && !sealed_) {  // nothing written: consume no transaction counter
    abort();
    return Status::OK();
  }
  Status st = flush_pending();
  // Fold open savepoints into the root.
  while (st.ok() && stack_.size() > 1) {
    const int rc = mdb::txn_commit(stack_.back().txn);
    stack_.pop_back();
    if (rc != MDB_SUCCESS) st = status_from_mdb(rc, "commit savepoint");
  }
  if (st.ok()) st = seal_transaction();
  if (st.ok() && interim_commits_ > 0) {  // the transaction is whole now
    st = write_counter(txn(), env_->tables().meta, meta_key::kUnfinishedFrom, 0);
  }
  if (st.ok()) st = env_->before_commit();
  if (!st.ok()) return fail(st);
  const int rc = mdb::txn_commit(stack_.front().txn);
  stack_.clear();
  env_->leave_txn();
  env_->release_writer();
  touch();
  txn_idents_.clear();
  if (rc != MDB_SUCCESS) {
    failure_ = status_from_mdb(rc, fmt::format("commit to graph '{}'", env_->path()));
    // LMDB reports a short write as EIO, which is what a full disk gives it: say so.
    constexpr std::uint64_t kNearlyFull = std::uint64_t{16} << 20;
    std::uint64_t free_bytes = 0;
    if (rc == EIO && env_->free_disk_bytes(&free_bytes) && free_bytes < kNearlyFull) {
      failure_ = Status(StatusCode::Full,
                        fmt::format("disk full: the commit to graph '{}' could not write its pages "
                                    "({} bytes free on its filesystem); the transaction was rolled "
                                    "back and the graph is as it was",
                                    env_->path(), free_bytes));
    }
    return failure_;
  }
  return Status::OK();
}

}  // namespace datalog::store
