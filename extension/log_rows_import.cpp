#include "extension/log_rows_import.h"

#include <fmt/format.h>

#include <vector>

namespace datalog::ext {

using store::Status;
using store::StatusCode;

Status exec_sql(sqlite3* db, const std::string& sql, const std::string& who) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::OK();
  StatusCode code = StatusCode::Internal;
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      code = StatusCode::Busy;
      break;
    case SQLITE_FULL:
      code = StatusCode::Full;
      break;
    case SQLITE_IOERR:
      code = StatusCode::IoError;
      break;
    case SQLITE_INTERRUPT:
      code = StatusCode::Interrupted;
      break;
    case SQLITE_READONLY:
      code = StatusCode::ReadOnly;
      break;
  }
  const Status st(code, fmt::format("{}: {}", who, message ? message : sqlite3_errstr(rc)));
  sqlite3_free(message);
  return st;
}

// The transaction begins right before the first INSERT, so an interrupt finds no other
// statement to refuse but those.
Status import_log_rows(sqlite3* db, GraphLog& log, const std::string& savepoint,
                       const LogRowSource& source, const std::function<Status()>& before_release) {
  bool begun = false;
  std::uint64_t seq = 0;
  std::vector<store::LogRow> one(1);
  Status st = source([&](store::LogRow& row) {
    if (!begun) {
      begun = true;
      DATALOG_RETURN_IF_ERROR(exec_sql(db, fmt::format("SAVEPOINT {}", savepoint), savepoint));
    }
    one[0] = std::move(row);
    const Status appended = log.append(one, seq);
    if (appended.ok()) seq = one[0].seq;
    return appended;
  });
  log.forget_tip();
  if (st.ok() && begun && before_release) st = before_release();
  if (st.ok() && begun) st = exec_sql(db, fmt::format("RELEASE {}", savepoint), savepoint);
  log.forget_tip();
  if (st.ok()) return st;
  // The call began in autocommit mode: a transaction open now is the import's (a statement that
  // fails may have done its work, SAVEPOINT included, before it was stopped).
  if (sqlite3_get_autocommit(db)) return st;  // never begun, or SQLite rolled it back
  const Status undone = exec_sql(db, fmt::format("ROLLBACK TO {0}; RELEASE {0}", savepoint), savepoint);
  if (undone.ok() || exec_sql(db, "ROLLBACK", savepoint).ok()) return st;
  // After sqlite3_interrupt, SQLite refuses every statement of the connection until the one
  // that called this function ends: the transaction can only be ended by the application.
  return Status(st.code(), fmt::format("{}; the import's transaction (nothing of it is committed) "
                                       "could not be ended and is still open: run ROLLBACK",
                                       st.message()));
}

}  // namespace datalog::ext
