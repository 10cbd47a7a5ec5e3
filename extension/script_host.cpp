#include "extension/script_host.h"

#include <fmt/format.h>

namespace datalog::ext {

SessionScriptHost::~SessionScriptHost() {
  if (own_transaction_) session_.rollback();
}

Status SessionScriptHost::enlist() {
  // A statement that writes the table makes SQLite call xBegin on it in the open transaction.
  const std::string sql = fmt::format("DELETE FROM {} WHERE 0", table_);
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  const std::string message = sqlite3_errmsg(db_);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) {
    return Status(rc == SQLITE_BUSY ? StatusCode::Busy : StatusCode::Internal,
                  fmt::format("cannot join the transaction: {}", message));
  }
  if (!session_.writer() || !session_.writer()->open()) {
    return Status(StatusCode::Internal, "the graph did not join the transaction");
  }
  return Status::OK();
}

Status SessionScriptHost::begin_write(GraphWriter** writer) {
  reading_.reset();
  session_.forget_schema();  // the command may write schema facts of its own
  store::WriteTxn* w = session_.writer();
  if (w && !w->failure().ok()) return w->failure();
  if (!w) {
    // In autocommit mode (and no writing statement around this call) the commands write on
    // their own; commit() then writes their log rows in one autocommit statement. Inside an SQL
    // transaction the table joins it.
    if (sqlite3_get_autocommit(db_) && sqlite3_txn_state(db_, nullptr) != SQLITE_TXN_WRITE) {
      DATALOG_RETURN_IF_ERROR(session_.begin_write());
      own_transaction_ = true;
    } else {
      DATALOG_RETURN_IF_ERROR(enlist());
    }
    w = session_.writer();
  }
  DATALOG_RETURN_IF_ERROR(w->savepoint(kPrivateSavepoint));
  writer_access_.emplace(session_.env(), *w);
  *writer = &*writer_access_;
  return Status::OK();
}

Status SessionScriptHost::end_write(bool success) {
  writer_access_.reset();
  store::WriteTxn* w = session_.writer();
  if (!w) return Status::OK();
  if (!success) DATALOG_RETURN_IF_ERROR(w->rollback_to(kPrivateSavepoint));
  DATALOG_RETURN_IF_ERROR(w->release(kPrivateSavepoint));
  // Inside an SQL transaction, a large one commits the index part way between two commands
  // when no savepoint is open (GraphSession::commit_part_if_due).
  if (!own_transaction_) return success ? session_.commit_part_if_due(page_bytes_) : Status::OK();
  // In autocommit mode each command is a graph transaction of its own; commit() ends them all.
  DATALOG_RETURN_IF_ERROR(w->next_transaction());
  return success && past_page_bound() ? w->commit_interim() : Status::OK();
}

Status SessionScriptHost::commit(InterruptProbe& probe) {
  if (probe.interrupted()) return Status(StatusCode::Interrupted, "interrupted");
  if (!own_transaction_) return Status::OK();
  own_transaction_ = false;
  reading_.reset();
  writer_access_.reset();
  return session_.commit_alone();
}

bool SessionScriptHost::past_page_bound() {
  store::WriteTxn* w = session_.writer();
  return own_transaction_ && w && page_bytes_ != std::numeric_limits<std::size_t>::max() &&
         w->past_dirty_bound(page_bytes_);
}

Status SessionScriptHost::checkpoint(GraphWriter** writer) {
  if (!writer_access_ || !past_page_bound()) return Status::OK();
  store::WriteTxn* w = session_.writer();
  writer_access_.reset();
  *writer = nullptr;
  DATALOG_RETURN_IF_ERROR(w->release(kPrivateSavepoint));
  DATALOG_RETURN_IF_ERROR(w->commit_interim());
  DATALOG_RETURN_IF_ERROR(w->savepoint(kPrivateSavepoint));
  writer_access_.emplace(session_.env(), *w);
  *writer = &*writer_access_;
  return Status::OK();
}

Status SessionScriptHost::reader(GraphReader** reader) {
  reading_.reset();
  DATALOG_RETURN_IF_ERROR(GraphReading::open(session_, &reading_));
  *reader = &reading_->access();
  return Status::OK();
}

}  // namespace datalog::ext
