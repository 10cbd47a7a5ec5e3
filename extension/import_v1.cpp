#include "extension/import_v1.h"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/connection_context.h"
#include "extension/errors.h"
#include "extension/graph_path.h"
#include "extension/sql_values.h"
#include "lmdb_store/v1_graph_reader.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

constexpr const char* kSavepoint = "datalog_import_v1";

Status exec(sqlite3* db, const std::string& sql) {
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
  const Status st(code,
                  fmt::format("datalog_import_v1: {}", message ? message : sqlite3_errstr(rc)));
  sqlite3_free(message);
  return st;
}

// The rows of the v1 file into the log, in one transaction. Every statement in it is an INSERT,
// which SQLite rolls back whole, transaction and all, when it is interrupted; the transaction
// begins right before the first, so an interrupt finds no other statement to refuse but those.
Status write_log(sqlite3* db, GraphLog& log, store::V1GraphReader& reader,
                 std::uint64_t* transactions) {
  bool begun = false;
  std::uint64_t seq = 0;
  std::vector<store::LogRow> one(1);
  store::V1GraphReader::Counts counts;
  Status st = reader.read(
      [&](store::LogRow& row) {
        if (!begun) {
          begun = true;
          DATALOG_RETURN_IF_ERROR(exec(db, fmt::format("SAVEPOINT {}", kSavepoint)));
        }
        one[0] = std::move(row);
        const Status appended = log.append(one, seq);
        if (appended.ok()) seq = one[0].seq;
        return appended;
      },
      &counts);
  if (st.ok() && begun) st = exec(db, fmt::format("RELEASE {}", kSavepoint));
  log.forget_tip();
  if (st.ok()) {
    *transactions = counts.transactions;
    return st;
  }
  // The call began in autocommit mode: a transaction open now is the import's (a statement that
  // fails may have done its work, SAVEPOINT included, before it was stopped).
  if (sqlite3_get_autocommit(db)) return st;  // never begun, or SQLite rolled it back
  const Status undone = exec(db, fmt::format("ROLLBACK TO {0}; RELEASE {0}", kSavepoint));
  if (undone.ok() || exec(db, "ROLLBACK").ok()) return st;
  // After sqlite3_interrupt, SQLite refuses every statement of the connection until the one
  // that called this function ends: the transaction can only be ended by the application.
  return Status(st.code(), fmt::format("{}; the import's transaction (nothing of it is committed) "
                                       "could not be ended and is still open: run ROLLBACK",
                                       st.message()));
}

Status import_v1(sqlite3* db, ConnectionContext& context, const std::string& table,
                 const std::string& file, std::uint64_t* transactions) {
  if (!sqlite3_get_autocommit(db) || sqlite3_txn_state(db, nullptr) == SQLITE_TXN_WRITE) {
    return Status(
        StatusCode::Misuse,
        "datalog_import_v1 commits a transaction of its own: call it outside BEGIN ... COMMIT");
  }
  std::string error;
  auto session = context.session_of_table(table, &error);
  if (!session) return Status(StatusCode::InvalidArgument, error);
  DATALOG_RETURN_IF_ERROR(session->check_log_and_owner());
  GraphLog& log = *session->log();
  if (file.empty())
    return Status(StatusCode::InvalidArgument, "datalog_import_v1: the graph file name is empty");
  std::string path;
  if (!resolve_graph_path(db, log.schema(), log.table(), file, context.any_graph_path(), &path,
                          &error)) {
    return Status(StatusCode::InvalidArgument, error);
  }
  std::unique_ptr<store::V1GraphReader> reader;
  DATALOG_RETURN_IF_ERROR(store::V1GraphReader::open(path, &reader));
  // Read before the transaction begins (a writer that commits in between makes the first
  // INSERT fail on its seq, and the import rolls back).
  GraphLog::Tip tip;
  log.forget_tip();
  DATALOG_RETURN_IF_ERROR(log.tip(&tip));
  if (tip.seq != 0) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("table {}.{} already holds a graph; import into a new table",
                              log.schema(), log.table()));
  }
  DATALOG_RETURN_IF_ERROR(write_log(db, log, *reader, transactions));
  // The log is committed: the index is built from it now, else by the next statement to use it.
  std::uint64_t replayed = 0;
  const Status built = session->rebuild(&replayed);
  if (!built.ok()) {
    return Status(built.code(),
                  fmt::format("the graph was imported into table {}.{} ({} transactions), "
                              "but its index could not be built yet: {}",
                              log.schema(), log.table(), *transactions, built.message()));
  }
  return Status::OK();
}

}  // namespace

void datalog_import_v1(sqlite3_context* ctx, int, sqlite3_value** argv) noexcept {
  try {
    auto* context = static_cast<ConnectionContext*>(sqlite3_user_data(ctx));
    sqlite3* db = sqlite3_context_db_handle(ctx);
    std::uint64_t transactions = 0;
    const Status st = import_v1(db, *context, std::string(text_of(argv[0])),
                                std::string(text_of(argv[1])), &transactions);
    if (!st.ok()) {
      const std::string message = "datalog: " + st.message();
      sqlite3_result_error(ctx, message.c_str(), -1);
      sqlite3_result_error_code(ctx, sqlite_code(st));
      return;
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(transactions));
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, (std::string("datalog: internal error: ") + e.what()).c_str(), -1);
  }
}

}  // namespace datalog::ext
