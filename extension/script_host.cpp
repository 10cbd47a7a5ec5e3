#include "extension/script_host.h"

#include <fmt/format.h>

namespace datalog::ext {

namespace {

constexpr const char* kOwnSavepoint = "datalog_exec_transaction";

int exec(sqlite3* db, const std::string& sql, std::string* message) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  if (message) *message = error ? error : "";
  sqlite3_free(error);
  return rc;
}

}  // namespace

SessionScriptHost::~SessionScriptHost() {
  if (own_transaction_) abandon();
}

void SessionScriptHost::abandon() {
  own_transaction_ = false;
  writer_access_.reset();
  reading_.reset();
  exec(db_, fmt::format("ROLLBACK TO {0}; RELEASE {0}", kOwnSavepoint), nullptr);
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
    // In autocommit mode (and no writing statement around this call), the commands get an SQL
    // transaction of their own, committed by commit(): the log rows and the application's view
    // of them go in at once, or not at all.
    if (sqlite3_get_autocommit(db_) && sqlite3_txn_state(db_, nullptr) != SQLITE_TXN_WRITE) {
      std::string message;
      if (exec(db_, fmt::format("SAVEPOINT {}", kOwnSavepoint), &message) != SQLITE_OK) {
        return Status(StatusCode::Busy, fmt::format("cannot begin a transaction: {}", message));
      }
      own_transaction_ = true;
    }
    const Status st = enlist();
    if (!st.ok()) {
      if (own_transaction_) abandon();
      return st;
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
  // In autocommit mode each command is a graph transaction of its own; commit() ends them all.
  return own_transaction_ ? w->next_transaction() : Status::OK();
}

Status SessionScriptHost::commit(InterruptProbe& probe) {
  if (probe.interrupted()) {
    if (own_transaction_) abandon();
    return Status(StatusCode::Interrupted, "interrupted");
  }
  if (!own_transaction_) return Status::OK();
  reading_.reset();
  writer_access_.reset();
  std::string message;
  const int rc = exec(db_, fmt::format("RELEASE {}", kOwnSavepoint), &message);
  if (rc != SQLITE_OK) {
    abandon();
    return Status((rc & 0xFF) == SQLITE_BUSY ? StatusCode::Busy : StatusCode::IoError,
                  fmt::format("cannot commit: {}", message));
  }
  own_transaction_ = false;
  return Status::OK();
}

Status SessionScriptHost::reader(GraphReader** reader) {
  reading_.reset();
  DATALOG_RETURN_IF_ERROR(GraphReading::open(session_, &reading_));
  *reader = &reading_->access();
  return Status::OK();
}

}  // namespace datalog::ext
