// lmdb_store/write_txn_log.cpp: the log rows a write transaction makes (storage v2), their replay
// into the index, and the index's position in the log.
#include "lmdb_store/write_txn.h"

#include <fmt/format.h>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/page_fault_guard.h"

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
    DATALOG_RETURN_IF_ERROR(w_.find_or_create_ident(name, id, &found, &created));
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
  for (auto& level : stack_) {  // mdb_drop keeps cursors usable, but be plain
    level.cursors.fill(nullptr);
    level.idents = IdentCursors{};
  }
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
