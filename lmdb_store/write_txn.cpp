#include "lmdb_store/write_txn.h"
#include "lmdb_store/page_fault_guard.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/tx_log_format.h"
#include "lmdb_store/mdb_values.h"

namespace datalog::store {

namespace {

// The EAVT key prefix of (e, a, v)'s records made by op in transaction tx; replaces out.
void encode_fact_op_prefix(std::string& out, EntityId e, EntityId a, const Value& v,
                           std::uint64_t tx, Op op) {
  out.clear();
  encode_fact_prefix(out, IndexId::Eavt, e, a, v);
  encode_tx_op(out, tx, op);
}

// How often put_record tries MDB_APPEND again after LMDB refused one.
constexpr std::uint32_t kAppendRetry = 64;

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

void WriteTxn::touch() { generation_ = ++g_generation; }

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

Status WriteTxn::index_cursor(IndexId index, MDB_cursor** cursor) {
  MDB_cursor*& cached = stack_.back().cursors[static_cast<std::size_t>(index)];
  if (!cached) {
    const int rc = mdb_cursor_open(txn(), table_of(env_->tables(), index), &cached);
    if (rc != MDB_SUCCESS) {
      cached = nullptr;
      return status_from_mdb(rc, "open index cursor");
    }
  }
  *cursor = cached;
  return Status::OK();
}

// Writes key with data (the datom's valid-to) into index; a's statistics count it.
Status WriteTxn::put_record(IndexId index, std::string_view key, std::string_view data, EntityId a,
                            bool* inserted) {
  MDB_cursor* cursor = nullptr;
  DATALOG_RETURN_IF_ERROR(index_cursor(index, &cursor));
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
    // Is this the first key with its prefix? Look at the neighbours of the new key.
    const std::string_view mine = key.substr(0, prefix);
    bool seen = false;
    MDB_val nk, nv;
    if (mdb::cursor_get(cursor, &nk, &nv, MDB_PREV) == MDB_SUCCESS) {
      seen = as_view(nk).substr(0, prefix) == mine;
      mdb::cursor_get(cursor, &nk, &nv, MDB_NEXT);
    }
    if (!seen && mdb::cursor_get(cursor, &nk, &nv, MDB_NEXT) == MDB_SUCCESS) {
      seen = as_view(nk).substr(0, prefix) == mine;
    }
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
    encode_datom_key(index_key_, index, d, tx_time);
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

Status WriteTxn::find_at_tx(EntityId e, EntityId a, const Value& v, Op op,
                            std::vector<Datom>* found) {
  DATALOG_RETURN_IF_ERROR(write_deferred());
  found->clear();
  std::string prefix;
  encode_fact_op_prefix(prefix, e, a, v, tx_, op);
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn(), env_->tables().eavt, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "open eavt cursor");
  OwnTxTimes times(*this);
  MDB_val k = as_val(prefix), val;
  rc = mdb::cursor_get(cursor, &k, &val, MDB_SET_RANGE);
  while (rc == MDB_SUCCESS && as_view(k).substr(0, prefix.size()) == prefix) {
    Datom d;
    GiantRef giant;
    if (decode_datom(IndexId::Eavt, as_view(k), as_view(val), &d, &giant, &times)) {
      d.v = v;  // the caller's full value (the key may hold a giant's prefix)
      found->push_back(std::move(d));
    }
    rc = mdb::cursor_get(cursor, &k, &val, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return status_from_mdb(rc, "read eavt");
  return Status::OK();
}

// The record of (e, a, v) that sorts last in EAVT: its highest transaction, and in it the
// highest operation (Retract < Assert < Reassert).
Status WriteTxn::last_record(EntityId e, EntityId a, const Value& v, std::optional<Datom>* last) {
  DATALOG_RETURN_IF_ERROR(write_deferred());
  last->reset();
  std::string& prefix = index_key_;
  prefix.clear();
  encode_fact_prefix(prefix, IndexId::Eavt, e, a, v);
  const std::size_t fact = prefix.size();
  prefix += kAfterFact;
  MDB_cursor* cursor = nullptr;
  DATALOG_RETURN_IF_ERROR(index_cursor(IndexId::Eavt, &cursor));
  MDB_val k = as_val(prefix), val;
  int rc = mdb::cursor_get(cursor, &k, &val, MDB_SET_RANGE);
  rc = rc == MDB_NOTFOUND ? mdb::cursor_get(cursor, &k, &val, MDB_LAST)
                          : (rc == MDB_SUCCESS ? mdb::cursor_get(cursor, &k, &val, MDB_PREV) : rc);
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read eavt");
  if (as_view(k).substr(0, fact) != std::string_view(prefix).substr(0, fact)) return Status::OK();
  Datom d;
  GiantRef giant;
  // Only the transaction and operation are needed: leave the value undecoded.
  OwnTxTimes times(*this);
  if (!decode_datom(IndexId::Eavt, as_view(k), as_view(val), &d, &giant, &times, /*skip_value=*/true)) {
    return index_damage(txn(), "an eavt record is malformed");
  }
  *last = std::move(d);
  return Status::OK();
}

Status WriteTxn::has_record(EntityId e, EntityId a, const Value& v, std::uint64_t tx, Op op,
                            bool* found) {
  DATALOG_RETURN_IF_ERROR(write_deferred());
  std::string& prefix = index_key_;
  encode_fact_op_prefix(prefix, e, a, v, tx, op);
  MDB_cursor* cursor = nullptr;
  DATALOG_RETURN_IF_ERROR(index_cursor(IndexId::Eavt, &cursor));
  MDB_val k = as_val(prefix), val;
  const int rc = mdb::cursor_get(cursor, &k, &val, MDB_SET_RANGE);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return status_from_mdb(rc, "read eavt");
  *found = rc == MDB_SUCCESS && as_view(k).substr(0, prefix.size()) == std::string_view(prefix);
  return Status::OK();
}

Status WriteTxn::assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                             std::int64_t valid_to) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  if (v.is(ValueKind::Float) && std::isnan(v.as_float())) {
    return Status(StatusCode::InvalidArgument, "cannot store NaN as a value");
  }
  Datom d{e, a, v, tx_, Op::Assert, valid_from, valid_to};
  Status st;
  if (is_giant(v)) st = store_giant(txn(), env_->tables(), v);
  if (st.ok() && retracted_) {
    bool after_retraction = false;
    st = has_record(e, a, v, tx_, Op::Retract, &after_retraction);
    if (st.ok() && after_retraction) d.op = Op::Reassert;
  }
  if (st.ok()) st = write_datom(d);
  if (!st.ok() && st.code() != StatusCode::InvalidArgument) return fail(st);
  if (st.ok()) {
    if (LogRow* row = log_row()) {
      log_assert(row->body, e, a, v, valid_from, valid_to, row->tx_time_ms);
      row->consumes_tx = true;
    }
  }
  return st;
}

Status WriteTxn::retract_fact(EntityId e, EntityId a, const Value& v, bool* stored) {
  if (stored) *stored = false;
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  // Whether an assertion is visible depends only on the latest retraction before it. When the
  // fact's latest record is already a retraction (or it has none), no assertion lies between
  // that retraction and this one, so storing this one would change no view at any time: it is
  // elided, as Datomic elides redundant datoms. It still consumes the transaction counter.
  std::optional<Datom> last;
  Status st = last_record(e, a, v, &last);
  if (!st.ok()) return fail(st);
  bool redundant = !last || last->op == Op::Retract;
  // An assertion that a retraction of its own transaction followed sorts after that retraction.
  if (last && last->op == Op::Assert) {
    st = has_record(e, a, v, last->tx, Op::Retract, &redundant);
    if (!st.ok()) return fail(st);
  }
  if (LogRow* row = log_row()) {  // elided or not, it consumes the counter
    log_retract(row->body, e, a, v);
    row->consumes_tx = true;
  }
  if (redundant) {
    ++elided_count_;
    dirty_ = true;
    touch();
    return Status::OK();
  }
  // A retraction cancels reassertions made earlier in this same transaction; they sort last.
  if (last->op == Op::Reassert && last->tx == tx_) {
    std::vector<Datom> reasserted;
    st = find_at_tx(e, a, v, Op::Reassert, &reasserted);
    for (const Datom& d : reasserted) {
      if (st.ok()) st = erase_datom(d);
    }
  }
  if (st.ok() && is_giant(v)) st = store_giant(txn(), env_->tables(), v);
  if (st.ok()) st = write_datom(Datom{e, a, v, tx_, Op::Retract, tx_time_ms_, kForever});
  if (!st.ok()) return fail(st);
  retracted_ = true;
  if (stored) *stored = true;
  return Status::OK();
}

Status WriteTxn::resolve_ident(const Value& name, EntityId* id) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  // Idents of this transaction first, then committed ones every reader shares, then LMDB.
  if (const auto mine = txn_idents_.find(name)) {
    *id = *mine;
    return Status::OK();
  }
  if (const auto committed = env_->read_cache().entity_of(name)) {
    *id = *committed;
    return Status::OK();
  }
  Status st;
  if (next_ident_ == 0) {  // the counter is kept here and written back by flush_pending()
    std::uint64_t next = 0;
    st = read_counter(txn(), env_->tables().meta, meta_key::kNextIdent, &next);
    next_ident_ = static_cast<EntityId>(std::max<std::uint64_t>(next, kFirstIdentId));
    if (first_new_ident_ == 0) first_new_ident_ = next_ident_;
  }
  bool created = false;
  if (st.ok()) st = create_ident(txn(), env_->tables(), name, next_ident_, id, &created);
  if (!st.ok()) return fail(st);
  if (!created) {
    remember_found_ident(name, *id);
    return st;
  }
  ++next_ident_;
  next_ident_dirty_ = true;
  txn_idents_.remember(name, *id);
  if (LogRow* row = log_row()) log_ident(row->body, *id, name);
  dirty_ = true;
  touch();
  return st;
}

// An ident found in LMDB: shared when it was committed before this transaction began (its id
// is below every id this transaction can create), else kept until commit.
void WriteTxn::remember_found_ident(const Value& name, EntityId id) {
  if (id < first_new_ident_) {
    env_->read_cache().remember_ident(name, id);
  } else {
    txn_idents_.remember(name, id);
  }
}

Status WriteTxn::add_rule(const StoredRule& rule) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  const Status st = write_rule(txn(), env_->tables(), rule, current_log_seq());
  if (!st.ok()) return fail(st);
  if (LogRow* row = log_row()) log_rule(row->body, rule);
  dirty_ = true;
  touch();
  return st;
}

Status WriteTxn::remove_rules(const std::string& name, int* removed) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  const Status st = delete_rules(txn(), env_->tables(), name, current_log_seq(), removed);
  if (!st.ok()) return fail(st);
  if (*removed > 0) {
    dirty_ = true;
    if (LogRow* row = log_row()) log_rules_removed(row->body, name);
  }
  touch();
  return st;
}

Status WriteTxn::defer_record(IndexId index, std::string_view key, EntityId a) {
  DeferredIndex& d = deferred_[static_cast<std::size_t>(index)];
  d.records.push_back(DeferredRecord{static_cast<std::uint32_t>(d.bytes.size()),
                                     static_cast<std::uint32_t>(key.size()),
                                     static_cast<std::uint32_t>(valid_to_.size()), a});
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
    // Stable: a record written twice keeps the valid-to written last, as direct puts would.
    std::stable_sort(d.records.begin(), d.records.end(),
                     [&](const DeferredRecord& x, const DeferredRecord& y) { return key_of(x) < key_of(y); });
    bool inserted = false;
    for (const DeferredRecord& r : d.records) {
      const std::string_view data = std::string_view(d.bytes).substr(r.at + r.key_size, r.data_size);
      DATALOG_RETURN_IF_ERROR(put_record(index, key_of(r), data, r.a, &inserted));
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
  return txn();
}

Status WriteTxn::flush_pending() {
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
  MDB_val k = as_val(key), v = as_val(header);
  return status_from_mdb(mdb::put(txn(), env_->tables().txlog, &k, &v, 0), "write transaction log");
}

std::int64_t WriteTxn::time_of_tx(std::uint64_t tx) {
  if (tx == tx_) return tx_time_ms_;
  std::optional<TxInfo> info;
  if (!read_tx_info(txn(), env_->tables(), tx, &info).ok() || !info) return kUnknownTxTime;
  return info->time_ms;
}

bool WriteTxn::OwnTxTimes::time_of(std::uint64_t tx, std::int64_t* ms) {
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

// --- the log (storage v2) ----------------------------------------------------------------------

namespace datalog::store {

namespace {
constexpr std::size_t kLogRowBytes = std::size_t{1} << 20;  // a row body grows to about this
}

WriteTxn::Level WriteTxn::new_level(MDB_txn* txn, int savepoint) const {
  Level level{txn, savepoint, datom_count_, dirty_, txn_idents_.mark(), elided_count_};
  level.log_rows_at_start = log_rows_.size();
  if (!log_rows_.empty()) {
    level.log_bytes_at_start = log_rows_.back().body.size();
    level.log_consumes_at_start = log_rows_.back().consumes_tx;
  }
  return level;
}

std::uint64_t WriteTxn::current_log_seq() {
  if (!logging_) return replay_seq_;
  // The row log_row() would write into, without making it.
  const bool new_row = log_rows_.empty() || log_rows_.back().tx != tx_ ||
                       log_rows_.back().body.size() >= kLogRowBytes;
  return log_base_ + log_rows_.size() + (new_row ? 1 : 0);
}

LogRow* WriteTxn::log_row() {
  if (!logging_) return nullptr;
  if (log_rows_.empty() || log_rows_.back().tx != tx_ || log_rows_.back().body.size() >= kLogRowBytes) {
    LogRow row;
    row.tx = tx_;
    row.tx_time_ms = tx_time_ms_;
    log_rows_.push_back(std::move(row));
  }
  return &log_rows_.back();
}

std::vector<LogRow> WriteTxn::take_log() {
  std::vector<LogRow> rows = std::move(log_rows_);
  log_rows_.clear();
  // A transaction that only changed rules consumed no counter: its rows carry the last counter
  // that was consumed, so the log's last row always tells the next counter.
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t end = i;
    bool consumed = false;
    while (end < rows.size() && rows[end].tx == rows[i].tx) consumed |= rows[end++].consumes_tx;
    for (; i < end; ++i) {
      rows[i].consumes_tx = consumed;
      if (!consumed) rows[i].tx -= 1;
    }
  }
  return rows;
}

class WriteTxn::Replayer final : public LogRecordVisitor {
 public:
  explicit Replayer(WriteTxn& w) : w_(w) {}
  Status ident(EntityId id, const Value& name) override {
    // Writers give idents ids from 2^52 up (meta.h); the log of a hostile database may not.
    if (id < static_cast<EntityId>(kFirstIdentId) || id == std::numeric_limits<EntityId>::max()) {
      return Status(StatusCode::Corrupt,
                    fmt::format("the graph's log gives ident {} the id {}, outside the ident range",
                                name.to_edn(), id));
    }
    EntityId found = 0;
    bool created = false;
    DATALOG_RETURN_IF_ERROR(create_ident(w_.txn(), w_.env_->tables(), name, id, &found, &created));
    if (found != id) {
      return Status(StatusCode::Corrupt,
                    fmt::format("the graph's log gives ident {} the id {}, the index has {}",
                                name.to_edn(), id, found));
    }
    if (w_.next_ident_ == 0) {
      std::uint64_t next = 0;
      DATALOG_RETURN_IF_ERROR(read_counter(w_.txn(), w_.env_->tables().meta, meta_key::kNextIdent, &next));
      w_.next_ident_ = static_cast<EntityId>(std::max<std::uint64_t>(next, kFirstIdentId));
    }
    w_.next_ident_ = std::max(w_.next_ident_, id + 1);
    w_.next_ident_dirty_ = true;
    w_.dirty_ = true;
    return Status::OK();
  }
  Status asserted(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                  std::int64_t valid_to) override {
    return w_.assert_fact(e, a, v, valid_from, valid_to);
  }
  Status retracted(EntityId e, EntityId a, const Value& v) override { return w_.retract_fact(e, a, v); }
  Status rule(const StoredRule& rule) override { return w_.add_rule(rule); }
  Status rules_removed(const std::string& name) override {
    int removed = 0;
    return w_.remove_rules(name, &removed);
  }
  // A transaction whose retractions were all elided still takes its counter (seal_transaction).
  Status counter_consumed() override {
    ++w_.elided_count_;
    w_.dirty_ = true;
    return Status::OK();
  }

 private:
  WriteTxn& w_;
};

Status WriteTxn::replay_row(const LogRow& row) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  if (logging_ || row.tx != tx_) {
    DATALOG_RETURN_IF_ERROR(finish_replay());
    logging_ = false;
    tx_ = row.tx;
    tx_time_ms_ = row.tx_time_ms;
    retracted_ = false;
  }
  replay_seq_ = row.seq;
  Replayer replayer(*this);
  const Status st = read_log_body(row.seq, row.tx_time_ms, row.body, replayer);
  if (!st.ok() && failure_.ok()) return fail(st);
  return st;
}

Status WriteTxn::finish_replay() {
  if (logging_ || (datom_count_ == 0 && elided_count_ == 0)) return Status::OK();
  Status st = flush_pending();
  if (st.ok()) st = seal_transaction();
  if (!st.ok()) return fail(st);
  sealed_ = true;
  datom_count_ = 0;
  elided_count_ = 0;
  return Status::OK();
}

Status WriteTxn::set_meta_text(std::string_view key, std::string_view value) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  const Status st = write_text(txn(), env_->tables().meta, key, value);
  if (!st.ok()) return fail(st);
  dirty_ = true;
  return Status::OK();
}

Status WriteTxn::clear_index() {
  if (!failure_.ok()) return failure_;
  if (stack_.size() != 1 || dirty_ || has_log()) {
    return Status(StatusCode::Misuse, "clear_index() after writes or inside a savepoint");
  }
  const Tables& t = env_->tables();
  for (MDB_dbi dbi : {t.eavt, t.aevt, t.avet, t.vaet, t.ident_names, t.ident_ids, t.txlog, t.stats,
                      t.giants, t.meta, t.rules}) {
    const int rc = mdb::drop(txn(), dbi, 0);
    if (rc != MDB_SUCCESS) return fail(status_from_mdb(rc, "empty the index"));
  }
  Status st = initialize_meta(txn(), t.meta);
  if (!st.ok()) return fail(st);
  for (auto& level : stack_) level.cursors.fill(nullptr);  // mdb_drop keeps cursors usable, but be plain
  next_ident_ = 0;
  next_ident_dirty_ = false;
  first_new_ident_ = 0;
  tx_ = first_tx_ = 1;
  header_tx_ = 0;
  dirty_ = true;
  touch();
  return Status::OK();
}

Status WriteTxn::set_indexed(std::uint64_t seq, std::int64_t tx_time_ms) {
  if (!failure_.ok()) return failure_;
  if (stack_.empty()) return Status(StatusCode::Misuse, "the write transaction is closed");
  const Tables& t = env_->tables();
  Status st = write_counter(txn(), t.meta, meta_key::kIndexedSeq, seq);
  if (st.ok()) st = write_counter(txn(), t.meta, meta_key::kIndexedTime, static_cast<std::uint64_t>(tx_time_ms));
  if (!st.ok()) return fail(st);
  dirty_ = true;
  return Status::OK();
}

}  // namespace datalog::store
