#include "extension/import_v1.h"

#include <fmt/format.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extension/connection_context.h"
#include "extension/errors.h"
#include "extension/index_path.h"
#include "extension/log_rows_import.h"
#include "extension/sql_values.h"
#include "lmdb_store/v1_graph_reader.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

constexpr const char* kSavepoint = "datalog_import_v1";

// The rows of the v1 file into the log, in one transaction (log_rows_import.h).
Status write_log(sqlite3* db, GraphLog& log, store::V1GraphReader& reader,
                 std::uint64_t* transactions) {
  store::V1GraphReader::Counts counts;
  const Status st = import_log_rows(
      db, log, kSavepoint,
      [&](const LogRowSink& sink) { return reader.read(sink, &counts); }, nullptr);
  if (st.ok()) *transactions = counts.transactions;
  return st;
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
