// lmdb_store/write_txn_facts.cpp: what a write transaction asserts and retracts — facts, idents
// and rules — and the lookups of a fact's records that decide what is stored.
#include "lmdb_store/write_txn.h"

#include <fmt/format.h>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"

namespace datalog::store {

namespace {

// The first EAVT key of (e, a, v)'s records made by op in transaction tx (same_tx_op finds the
// others); replaces out.
void encode_fact_op_prefix(std::string& out, EntityId e, EntityId a, const Value& v,
                           std::uint64_t tx, Op op) {
  out.clear();
  encode_fact_prefix(out, IndexId::Eavt, e, a, v);
  encode_tx_op(out, tx, op);
}

// For decoding a record when its valid-from is not wanted: a valid-from left out as its
// transaction's time decodes as 0.
class TimeNotNeeded final : public TxTimes {
  bool look_up(std::uint64_t, std::int64_t* ms) override {
    *ms = 0;
    return true;
  }
};

}  // namespace

Status WriteTxn::find_at_tx(EntityId e, EntityId a, const Value& v, Op op,
                            std::vector<Datom>* found) {
  DATALOG_RETURN_IF_ERROR(write_deferred());
  found->clear();
  std::string prefix;
  encode_fact_op_prefix(prefix, e, a, v, tx_, op);
  MDB_cursor* cursor = nullptr;
  int rc = mdb::cursor_open(txn(), env_->tables().eavt, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "open eavt cursor");
  OwnTxTimes times(*this);
  MDB_val k = as_val(prefix), val;
  rc = mdb::cursor_get(cursor, &k, &val, MDB_SET_RANGE);
  KeyOrder order;
  while (rc == MDB_SUCCESS && same_tx_op(as_view(k), prefix)) {
    if (!order.next(as_view(k))) {
      mdb_cursor_close(cursor);
      return index_damage(txn(), "eavt keys are out of order");
    }
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
  // Only the transaction and operation are needed: leave the value undecoded, and the default
  // valid-from too (its transaction's time would cost a lookup per retracted fact).
  TimeNotNeeded times;
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
  *found = rc == MDB_SUCCESS && same_tx_op(as_view(k), prefix);
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
  if (st.ok()) st = find_or_create_ident(name, next_ident_, id, &created);
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

Status WriteTxn::find_or_create_ident(const Value& name, EntityId new_id, EntityId* id, bool* created) {
  IdentCursors* cursors = nullptr;
  DATALOG_RETURN_IF_ERROR(ident_cursors(&cursors));
  bool at_end = false;
  DATALOG_RETURN_IF_ERROR(create_ident(cursors, name, new_id, id, created, &at_end));
  if (*created) count_ident_puts(name, at_end);
  return Status::OK();
}

void WriteTxn::count_ident_puts(const Value& name, bool name_appended) {
  const std::size_t bytes = name.is(ValueKind::Keyword) ? name.as_keyword().size() : sizeof(Uuid);
  count_put(name_appended, bytes);  // the name, at the end or where it sorts
  count_put(true, bytes);           // the id: ids are handed out in order
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

}  // namespace datalog::store
