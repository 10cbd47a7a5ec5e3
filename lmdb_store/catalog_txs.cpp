// Transactions (catalog.h): each one's time and size, the transaction as of a time, its datoms.
#include "lmdb_store/catalog.h"

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"
#include "lmdb_store/tx_log_format.h"

namespace datalog::store {

Status read_tx_info(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::optional<TxInfo>* out) {
  const std::string key = tx_header_key(tx);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.txlog, &k, &v);
  if (rc == MDB_NOTFOUND) {
    out->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read transaction log");
  std::string_view d;
  if (!checked_payload(key, as_view(v), &d) || d.size() != 16) {
    return index_damage(txn, "a transaction header is malformed");
  }
  *out = TxInfo{tx, get_i64(d), get_u64(d.substr(8))};
  return Status::OK();
}

bool IndexTxTimes::look_up(std::uint64_t tx, std::int64_t* ms) {
  Slot& slot = slots_[tx % slots_.size()];
  if (slot.tx == tx && tx != 0) {
    *ms = slot.ms;
    return true;
  }
  if (committed_ && committed_->tx_time(state_, tx, ms)) {
    slot = Slot{tx, *ms};
    return true;
  }
  std::optional<TxInfo> info;
  if (!read_tx_info(txn_, *t_, tx, &info).ok() || !info) return false;
  slot = Slot{tx, info->time_ms};
  if (committed_) committed_->remember_tx_time(state_, tx, info->time_ms);
  *ms = info->time_ms;
  return true;
}

Status tx_as_of_time(MDB_txn* txn, const Tables& t, std::int64_t time_ms, std::uint64_t* tx) {
  std::uint64_t last = 0;
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kLastTx, &last));
  // Transaction times never decrease (WriteTxn enforces it), so binary search by counter.
  std::uint64_t lo = 0, hi = last;  // answer in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    std::optional<TxInfo> info;
    DATALOG_RETURN_IF_ERROR(read_tx_info(txn, t, mid, &info));
    if (info && info->time_ms <= time_ms) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  *tx = lo;
  return Status::OK();
}

Status read_tx_datoms(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::vector<Datom>* out) {
  out->clear();
  MDB_cursor* cursor = nullptr;
  int rc = mdb::cursor_open(txn, t.eavt, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read eavt");
  MDB_val k, v;
  rc = mdb::cursor_get(cursor, &k, &v, MDB_FIRST);
  Status st;
  IndexTxTimes times(txn, t);
  KeyOrder order;
  while (rc == MDB_SUCCESS && st.ok()) {
    Datom d;
    GiantRef giant;
    if (!order.next(as_view(k))) {
      st = index_damage(txn, "eavt keys are out of order");
    } else if (!decode_datom(IndexId::Eavt, as_view(k), as_view(v), &d, &giant, &times)) {
      st = index_damage(txn, "an eavt record is malformed");
    } else if (d.tx == tx) {
      if (giant.giant) st = load_giant(txn, t, giant.hash, &d.v);
      out->push_back(std::move(d));
    }
    if (st.ok()) rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (st.ok() && rc != MDB_SUCCESS && rc != MDB_NOTFOUND) st = status_from_mdb(rc, "read eavt");
  return st;
}

}  // namespace datalog::store
