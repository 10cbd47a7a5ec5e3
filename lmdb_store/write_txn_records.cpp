// lmdb_store/write_txn_records.cpp: index records written by a write transaction: put (appended
// where keys come in order), deleted, or deferred and written sorted at the end.
#include "lmdb_store/write_txn.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"

namespace datalog::store {

namespace {

// How often put_record tries MDB_APPEND again after LMDB refused one.
constexpr std::uint32_t kAppendRetry = 64;

// LMDB's largest key (its default MDB_MAXKEYSIZE); datom keys stay below it (datom_layout.h).
constexpr std::size_t kMaxKeyBytes = 511;

// The first 8 bytes of key as a big-endian number, zeros past its end: two keys whose heads
// differ compare as their heads do.
std::uint64_t key_head(std::string_view key) {
  unsigned char bytes[8] = {};
  std::memcpy(bytes, key.data(), std::min<std::size_t>(key.size(), 8));
  std::uint64_t head = 0;
  for (const unsigned char b : bytes) head = head << 8 | b;
  return head;
}

// Whether a key next to the one cursor stands on (just put) starts with prefix, the new key's:
// if not, the new key is the first with it. An appended key sorts last, so it has no next.
bool neighbour_has_prefix(MDB_cursor* cursor, std::string_view prefix, bool appended) {
  MDB_val nk, nv;
  if (mdb::cursor_get(cursor, &nk, &nv, MDB_PREV) == MDB_SUCCESS) {
    if (as_view(nk).substr(0, prefix.size()) == prefix) return true;
    if (appended) return false;
    mdb::cursor_get(cursor, &nk, &nv, MDB_NEXT);
  }
  return !appended && mdb::cursor_get(cursor, &nk, &nv, MDB_NEXT) == MDB_SUCCESS &&
         as_view(nk).substr(0, prefix.size()) == prefix;
}

}  // namespace

// cached: a cursor of the innermost level on dbi, opened on first use.
Status WriteTxn::cached_cursor(MDB_dbi dbi, MDB_cursor*& cached, MDB_cursor** cursor) {
  if (!cached) {
    const int rc = mdb::cursor_open(txn(), dbi, &cached);
    if (rc != MDB_SUCCESS) {
      cached = nullptr;
      return status_from_mdb(rc, "open index cursor");
    }
  }
  *cursor = cached;
  return Status::OK();
}

Status WriteTxn::index_cursor(IndexId index, MDB_cursor** cursor) {
  return cached_cursor(table_of(env_->tables(), index), stack_.back().cursors[static_cast<std::size_t>(index)],
                       cursor);
}

Status WriteTxn::ident_cursors(IdentCursors** out) {
  IdentCursors& cached = stack_.back().idents;
  DATALOG_RETURN_IF_ERROR(cached_cursor(env_->tables().ident_names, cached.names, &cached.names));
  DATALOG_RETURN_IF_ERROR(cached_cursor(env_->tables().ident_ids, cached.ids, &cached.ids));
  *out = &cached;
  return Status::OK();
}

// Writes key with valid_to (the datom's valid-to bytes) and the check byte into index; a's
// statistics count it.
Status WriteTxn::put_record(IndexId index, std::string_view key, std::string_view valid_to, EntityId a,
                            bool* inserted, std::string_view* last_appended) {
  MDB_cursor* cursor = nullptr;
  DATALOG_RETURN_IF_ERROR(index_cursor(index, &cursor));
  record_data_.assign(valid_to);
  append_record_check(record_data_, key);
  const std::string_view data = record_data_;
  MDB_val k = as_val(key), v = as_val(data);
  // Keys that come in ascending order (new entities loaded in bulk) go in with MDB_APPEND, which
  // skips LMDB's search. LMDB refuses the append (MDB_KEYEXIST) unless the key sorts after every
  // key; then the key goes in by search, and appends are tried again every kAppendRetry puts.
  Level& level = stack_.back();
  const auto i = static_cast<std::size_t>(index);
  int rc = MDB_KEYEXIST;
  if (level.appending[i] || ++level.puts_since_append[i] >= kAppendRetry) {
    level.puts_since_append[i] = 0;
    rc = mdb::cursor_put(cursor, &k, &v, MDB_APPEND);
    level.appending[i] = rc == MDB_SUCCESS;
  }
  const bool appended = rc == MDB_SUCCESS;
  count_put(appended, key.size() + data.size());
  // An appended key follows the key appended just before it, if there was one: its neighbour.
  const std::string_view before = appended && last_appended ? *last_appended : std::string_view();
  if (last_appended) *last_appended = appended ? key : std::string_view();
  if (rc == MDB_KEYEXIST) rc = mdb::cursor_put(cursor, &k, &v, MDB_NOOVERWRITE);
  if (rc == MDB_KEYEXIST) {  // the same record again: keep one, with the newest valid-to
    k = as_val(key);
    v = as_val(data);
    rc = mdb::cursor_put(cursor, &k, &v, 0);
    *inserted = false;
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("write {}", index_name(index)));
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("write {}", index_name(index)));
  *inserted = true;
  if (index == IndexId::Eavt) {  // a new record (not the same one again): counted once, here
    ++pending_stats_[a].records;
    ++pending_records_;
  }
  const std::size_t prefix = counted_prefix_length(index, key);
  if (prefix > 0) {
    const std::string_view mine = key.substr(0, prefix);
    const bool seen = before.empty() ? neighbour_has_prefix(cursor, mine, appended)
                                     : before.substr(0, prefix) == mine;
    if (!seen) {
      if (index == IndexId::Eavt) ++pending_entities_;
      if (index == IndexId::Aevt) ++pending_stats_[a].entities;
      if (index == IndexId::Avet) ++pending_stats_[a].values;
    }
  }
  return Status::OK();
}

Status WriteTxn::delete_record(IndexId index, const Datom& d) {
  std::string key;
  encode_datom_key(key, index, d, time_of_tx(d.tx));
  MDB_val k = as_val(key);
  const int rc = mdb::del(txn(), table_of(env_->tables(), index), &k, nullptr);
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("delete from {}", index_name(index)));
  return Status::OK();
}

Status WriteTxn::write_datom(const Datom& d) {
  valid_to_.clear();
  encode_valid_to(valid_to_, d.valid_to);
  if (header_tx_ != tx_) {
    // The transaction's time goes in now, not only when it is sealed: records valid from it are
    // decoded with it (TxTimes), also by reads through this writer before it commits.
    DATALOG_RETURN_IF_ERROR(write_tx_header(0));
    header_tx_ = tx_;
  }
  const std::int64_t tx_time = time_of_tx(d.tx);
  eavt_key_.clear();
  encode_datom_key(eavt_key_, IndexId::Eavt, d, tx_time);
  // EAVT waits too while the transaction has retracted nothing: until then the writer reads no
  // EAVT record (last_record, has_record and find_at_tx write what waits before they read).
  if (retracted_) {
    bool inserted = false;
    DATALOG_RETURN_IF_ERROR(put_record(IndexId::Eavt, eavt_key_, valid_to_, d.a, &inserted));
  } else {
    DATALOG_RETURN_IF_ERROR(defer_record(IndexId::Eavt, eavt_key_, d.a));
  }
  for (const IndexId index : {IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
    if (index == IndexId::Vaet && !d.v.is(ValueKind::Ref)) continue;
    index_key_.clear();
    datom_key_from_eavt(index_key_, index, eavt_key_);
    DATALOG_RETURN_IF_ERROR(defer_record(index, index_key_, d.a));
  }
  ++datom_count_;
  dirty_ = true;
  touch();
  return Status::OK();
}

Status WriteTxn::erase_datom(const Datom& d) {
  DATALOG_RETURN_IF_ERROR(write_deferred());  // the records to delete may still be waiting
  DATALOG_RETURN_IF_ERROR(delete_record(IndexId::Eavt, d));
  DATALOG_RETURN_IF_ERROR(delete_record(IndexId::Aevt, d));
  DATALOG_RETURN_IF_ERROR(delete_record(IndexId::Avet, d));
  if (d.v.is(ValueKind::Ref)) DATALOG_RETURN_IF_ERROR(delete_record(IndexId::Vaet, d));
  --pending_stats_[d.a].records;
  --pending_records_;
  touch();
  return Status::OK();
}

Status WriteTxn::defer_record(IndexId index, std::string_view key, EntityId a) {
  DeferredIndex& d = deferred_[static_cast<std::size_t>(index)];
  // The sizes fit DeferredRecord's 16 bits: a key LMDB takes, and a valid-to of 0 or 8 bytes.
  static_assert(kMaxKeyBytes <= UINT16_MAX);
  if (key.size() > kMaxKeyBytes) return Status(StatusCode::Internal, "an index key too large to defer");
  d.records.push_back(DeferredRecord{static_cast<std::uint32_t>(d.bytes.size()),
                                     static_cast<std::uint16_t>(key.size()),
                                     static_cast<std::uint16_t>(valid_to_.size()), key_head(key), a});
  d.bytes += key;
  d.bytes += valid_to_;
  deferred_bytes_ += key.size() + valid_to_.size() + sizeof(DeferredRecord);
  return deferred_bytes_ >= deferral_bound_ ? write_deferred() : Status::OK();
}

Status WriteTxn::write_deferred() {
  if (deferred_bytes_ == 0) return Status::OK();
  for (const IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
    DeferredIndex& d = deferred_[static_cast<std::size_t>(index)];
    auto key_of = [&d](const DeferredRecord& r) { return std::string_view(d.bytes).substr(r.at, r.key_size); };
    const auto by_key = [&](const DeferredRecord& x, const DeferredRecord& y) {
      return x.head != y.head ? x.head < y.head : key_of(x) < key_of(y);
    };
    // Stable: a record written twice keeps the valid-to written last, as direct puts would. A bulk
    // load of new entities defers its records in key order already: one pass tells, and the sort
    // (a merge pass per doubling, each moving every record) is skipped.
    if (!std::is_sorted(d.records.begin(), d.records.end(), by_key)) {
      std::stable_sort(d.records.begin(), d.records.end(), by_key);
    }
    bool inserted = false;
    std::string_view last_appended;  // nothing but this loop writes to the index meanwhile
    for (const DeferredRecord& r : d.records) {
      const std::string_view data = std::string_view(d.bytes).substr(r.at + r.key_size, r.data_size);
      DATALOG_RETURN_IF_ERROR(put_record(index, key_of(r), data, r.a, &inserted, &last_appended));
    }
    d.bytes.clear();
    d.records.clear();
  }
  deferred_bytes_ = 0;
  return Status::OK();
}

MDB_txn* WriteTxn::read_txn() {
  if (failure_.ok() && deferred_bytes_ > 0) {
    const Status st = write_deferred();
    if (!st.ok()) fail(st);
  }
  return catalog_read_txn();
}

MDB_txn* WriteTxn::catalog_read_txn() {
  if (failure_.ok() && !stack_.empty()) {
    const Status st = flush_ident_writes(&stack_.back().idents);
    if (!st.ok()) fail(st);
  }
  return txn();
}

Status WriteTxn::flush_pending() {
  if (!stack_.empty()) DATALOG_RETURN_IF_ERROR(flush_ident_writes(&stack_.back().idents));
  DATALOG_RETURN_IF_ERROR(write_deferred());
  const Tables& t = env_->tables();
  if (next_ident_dirty_) {
    DATALOG_RETURN_IF_ERROR(write_counter(txn(), t.meta, meta_key::kNextIdent, static_cast<std::uint64_t>(next_ident_)));
    next_ident_dirty_ = false;
  }
  for (const auto& [attr, delta] : pending_stats_) {
    AttributeStats s;
    DATALOG_RETURN_IF_ERROR(read_attribute_stats(txn(), t, attr, &s));
    s.records = static_cast<std::uint64_t>(static_cast<std::int64_t>(s.records) + delta.records);
    s.entities = static_cast<std::uint64_t>(static_cast<std::int64_t>(s.entities) + delta.entities);
    s.values = static_cast<std::uint64_t>(static_cast<std::int64_t>(s.values) + delta.values);
    DATALOG_RETURN_IF_ERROR(write_attribute_stats(txn(), t, attr, s));
  }
  pending_stats_.clear();
  if (pending_records_ != 0 || pending_entities_ != 0) {
    std::uint64_t records = 0, entities = 0;
    DATALOG_RETURN_IF_ERROR(read_counter(txn(), t.meta, meta_key::kRecords, &records));
    DATALOG_RETURN_IF_ERROR(read_counter(txn(), t.meta, meta_key::kEntities, &entities));
    DATALOG_RETURN_IF_ERROR(write_counter(
        txn(), t.meta, meta_key::kRecords,
        static_cast<std::uint64_t>(static_cast<std::int64_t>(records) + pending_records_)));
    DATALOG_RETURN_IF_ERROR(write_counter(
        txn(), t.meta, meta_key::kEntities,
        static_cast<std::uint64_t>(static_cast<std::int64_t>(entities) + pending_entities_)));
    pending_records_ = pending_entities_ = 0;
  }
  return Status::OK();
}

}  // namespace datalog::store
