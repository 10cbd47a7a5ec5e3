#include "extension/graph_log.h"

#include <cstring>

#include <fmt/format.h>

#include "extension/sql_values.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

std::string shadow(const std::string& schema, const std::string& table, const char* suffix) {
  return quote_identifier(schema) + "." + quote_identifier(table + "_" + suffix);
}

StatusCode code_of(int rc) {
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED: return StatusCode::Busy;
    case SQLITE_FULL: return StatusCode::Full;
    case SQLITE_IOERR: return StatusCode::IoError;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return StatusCode::Corrupt;
    case SQLITE_INTERRUPT: return StatusCode::Interrupted;
    case SQLITE_READONLY: return StatusCode::ReadOnly;
    case SQLITE_CANTOPEN: return StatusCode::CantOpen;
    default: return StatusCode::Internal;
  }
}

Status run(sqlite3* db, const std::string& sql, const char* what) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return Status::OK();
  Status st(code_of(rc), fmt::format("{}: {}", what, message ? message : sqlite3_errstr(rc)));
  sqlite3_free(message);
  return st;
}

}  // namespace

Status GraphLog::create(sqlite3* db, const std::string& schema, const std::string& table) {
  const std::string log = shadow(schema, table, "log"), meta = shadow(schema, table, "meta");
  return run(db,
             fmt::format("CREATE TABLE {}(seq INTEGER PRIMARY KEY, tx INTEGER NOT NULL, "
                         "tx_time INTEGER NOT NULL, body BLOB NOT NULL);"
                         "CREATE TABLE {}(key TEXT PRIMARY KEY, value) WITHOUT ROWID;"
                         "INSERT INTO {}(key, value) VALUES ('uuid', lower(hex(randomblob(16)))), "
                         "('format', {});",
                         log, meta, meta, kLogFormat),
             "cannot create the graph's log tables");
}

Status GraphLog::destroy(sqlite3* db, const std::string& schema, const std::string& table) {
  return run(db,
             fmt::format("DROP TABLE IF EXISTS {}; DROP TABLE IF EXISTS {};",
                         shadow(schema, table, "log"), shadow(schema, table, "meta")),
             "cannot drop the graph's log tables");
}

Status GraphLog::rename(sqlite3* db, const std::string& schema, const std::string& from,
                        const std::string& to) {
  return run(db,
             fmt::format("ALTER TABLE {} RENAME TO {}; ALTER TABLE {} RENAME TO {};",
                         shadow(schema, from, "log"), quote_identifier(to + "_log"),
                         shadow(schema, from, "meta"), quote_identifier(to + "_meta")),
             "cannot rename the graph's log tables");
}

bool GraphLog::is_shadow_suffix(const char* suffix) {
  return sqlite3_stricmp(suffix, "log") == 0 || sqlite3_stricmp(suffix, "meta") == 0;
}

void GraphLog::renamed(std::string to) {
  finalize();
  table_ = std::move(to);
}

void GraphLog::finalize() {
  for (sqlite3_stmt** s : {&tip_stmt_, &append_stmt_, &read_stmt_, &row_stmt_}) {
    sqlite3_finalize(*s);
    *s = nullptr;
  }
  tip_cached_ = false;
}

std::string GraphLog::log_table() const { return shadow(schema_, table_, "log"); }

Status GraphLog::sql_error(int rc, const std::string& what) const {
  return Status(code_of(rc), fmt::format("{} of graph table {}.{}: {}", what, schema_, table_,
                                         sqlite3_errmsg(db_)));
}

Status GraphLog::prepare(sqlite3_stmt** stmt, const std::string& sql) {
  if (*stmt) return Status::OK();
  const int rc = sqlite3_prepare_v3(db_, sql.c_str(), -1, SQLITE_PREPARE_PERSISTENT, stmt, nullptr);
  if (rc != SQLITE_OK) {
    *stmt = nullptr;
    return sql_error(rc, "cannot read the log");
  }
  return Status::OK();
}

Status GraphLog::exists(bool* out) {
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = fmt::format("SELECT 1 FROM {}.sqlite_schema WHERE type = 'table' AND name = ?",
                                      quote_identifier(schema_));
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc != SQLITE_OK) return sql_error(rc, "cannot look for the log");
  const std::string name = table_ + "_log";
  sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  rc = sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_error(rc, "cannot look for the log");
  *out = rc == SQLITE_ROW;
  return Status::OK();
}

Status GraphLog::uuid(std::string* out) {
  sqlite3_stmt* stmt = nullptr;
  const std::string sql =
      fmt::format("SELECT value FROM {} WHERE key = 'uuid'", shadow(schema_, table_, "meta"));
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc != SQLITE_OK) return sql_error(rc, "cannot read the graph's identity");
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW && sqlite3_column_type(stmt, 0) == SQLITE_TEXT) {
    *out = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_error(rc, "cannot read the graph's identity");
  if (out->empty()) {
    return Status(StatusCode::Corrupt,
                  fmt::format("graph table {}.{} has no uuid in {}_meta", schema_, table_, table_));
  }
  return Status::OK();
}

Status GraphLog::identity(bool* exists, std::string* uuid) {
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = fmt::format(
      "SELECT EXISTS (SELECT 1 FROM {}.sqlite_schema WHERE type = 'table' AND name = ?), "
      "(SELECT value FROM {meta} WHERE key = 'uuid'), (SELECT value FROM {meta} WHERE key = 'format')",
      quote_identifier(schema_), fmt::arg("meta", shadow(schema_, table_, "meta")));
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    // No "<table>_meta" (a table of the first storage format): the questions one at a time.
    sqlite3_finalize(stmt);
    DATALOG_RETURN_IF_ERROR(this->exists(exists));
    return *exists ? this->uuid(uuid) : Status::OK();
  }
  const std::string name = table_ + "_log";
  sqlite3_bind_text(stmt, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  const int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    *exists = sqlite3_column_int(stmt, 0) != 0;
    if (sqlite3_column_type(stmt, 1) == SQLITE_TEXT) {
      *uuid = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    }
    // A log made before the format was recorded has none: format 1.
    format_ = sqlite3_column_type(stmt, 2) == SQLITE_NULL ? 1 : sqlite3_column_int(stmt, 2);
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW) return sql_error(rc, "cannot read the graph's identity");
  if (*exists && (format_ < 1 || format_ > kLogFormat)) {
    return Status(StatusCode::TooNew,
                  fmt::format("graph table {}.{}: its log {}_log is of format {}, which this build of "
                              "sqlite-datalog cannot read (it reads formats 1 to {}); open it with "
                              "the build that wrote it or a newer one",
                              schema_, table_, table_, format_, kLogFormat));
  }
  if (*exists && uuid->empty()) {
    return Status(StatusCode::Corrupt,
                  fmt::format("graph table {}.{} has no uuid in {}_meta", schema_, table_, table_));
  }
  return Status::OK();
}

Status GraphLog::tip(Tip* out, std::uint64_t index_state) {
  // The data version is current only inside a read transaction of the schema (a statement of
  // the temp schema may hold none of main's): otherwise it may miss another connection's commit.
  const bool reading = sqlite3_txn_state(db_, schema_.c_str()) != SQLITE_TXN_NONE;
  if (!reading && tip_cached_ && index_state != 0 && index_state == tip_index_state_ &&
      std::chrono::steady_clock::now() - tip_read_at_ < kTipReuse) {
    *out = tip_;
    return Status::OK();
  }
  unsigned version = 0;
  const bool versioned =
      sqlite3_file_control(db_, schema_.c_str(), SQLITE_FCNTL_DATA_VERSION, &version) == SQLITE_OK;
  if (tip_cached_ && versioned && reading && version == tip_version_) {
    *out = tip_;
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(prepare(
      &tip_stmt_, fmt::format("SELECT seq, tx, tx_time FROM {} ORDER BY seq DESC LIMIT 1", log_table())));
  // Stamped before the read, so a reuse never outlives the tip's age.
  const auto read_at = reading ? tip_read_at_ : std::chrono::steady_clock::now();
  Tip tip;
  const int rc = sqlite3_step(tip_stmt_);
  if (rc == SQLITE_ROW) {
    tip.seq = static_cast<std::uint64_t>(sqlite3_column_int64(tip_stmt_, 0));
    tip.tx = static_cast<std::uint64_t>(sqlite3_column_int64(tip_stmt_, 1));
    tip.tx_time_ms = sqlite3_column_int64(tip_stmt_, 2);
  }
  sqlite3_reset(tip_stmt_);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_error(rc, "cannot read the log");
  tip_ = tip;
  tip_cached_ = versioned;
  tip_version_ = version;
  // Only a tip read outside a read transaction is the newest: one read inside it is as old as
  // the transaction's snapshot, which a later statement outside it must not take for the newest.
  tip_index_state_ = reading ? 0 : index_state;
  tip_read_at_ = read_at;
  *out = tip;
  return Status::OK();
}

// One statement for all rows: in autocommit mode it is the commit, all or nothing.
Status GraphLog::append(std::vector<store::LogRow>& rows, std::uint64_t after) {
  if (rows.empty()) return Status::OK();
  tip_cached_ = false;
  const std::string head = fmt::format("INSERT INTO {}(seq, tx, tx_time, body) VALUES (?, ?, ?, ?)", log_table());
  sqlite3_stmt* stmt = nullptr;
  if (rows.size() == 1) {
    DATALOG_RETURN_IF_ERROR(prepare(&append_stmt_, head));
    stmt = append_stmt_;
  } else {
    std::string sql = head;
    for (std::size_t i = 1; i < rows.size(); ++i) sql += ", (?, ?, ?, ?)";
    const int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
    if (rc != SQLITE_OK) return sql_error(rc, "cannot write the log");
  }
  int param = 0;
  bool packed_any = false;
  std::string scratch;
  for (store::LogRow& row : rows) {
    row.seq = ++after;
    // A compressed body takes the raw one's place, so a large transaction holds one form of
    // each row, not both.
    const std::string_view stored = packer_.pack(row.body, &scratch);
    if (store::is_packed_body(stored)) {
      row.body = std::string(stored);
      packed_any = true;
    }
    sqlite3_bind_int64(stmt, ++param, static_cast<sqlite3_int64>(row.seq));
    sqlite3_bind_int64(stmt, ++param, static_cast<sqlite3_int64>(row.tx));
    sqlite3_bind_int64(stmt, ++param, row.tx_time_ms);
    sqlite3_bind_blob64(stmt, ++param, row.body.data(), row.body.size(), SQLITE_STATIC);
  }
  Status marked = packed_any && format_ != kLogFormat ? mark_format_2() : Status::OK();
  const int rc = marked.ok() ? sqlite3_step(stmt) : SQLITE_DONE;
  const Status st = !marked.ok() ? marked : rc == SQLITE_DONE ? Status::OK() : sql_error(rc, "cannot write the log");
  if (stmt == append_stmt_) {
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
  } else {
    sqlite3_finalize(stmt);
  }
  return st;
}

Status GraphLog::mark_format_2() {
  // Only a log below 2 changes; in the caller's transaction, so it is undone with the rows.
  return run(db_,
             fmt::format("UPDATE {} SET value = 2 WHERE key = 'format' AND value < 2",
                         shadow(schema_, table_, "meta")),
             "cannot mark the graph's log as format 2");
}

Status GraphLog::read(std::uint64_t from, std::uint64_t through,
                      const std::function<Status(const store::LogRow&)>& each) {
  // Its own statement each time: each() may run statements of its own, and a rebuild reads
  // while an earlier read of the same log is still open higher up the stack.
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = fmt::format(
      "SELECT seq, tx, tx_time, body FROM {} WHERE seq > ? AND seq <= ? ORDER BY seq", log_table());
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  if (rc != SQLITE_OK) return sql_error(rc, "cannot read the log");
  sqlite3_bind_int64(stmt, 1, static_cast<sqlite3_int64>(from));
  sqlite3_bind_int64(stmt, 2, static_cast<sqlite3_int64>(through));
  Status st;
  store::LogRow row;
  while (st.ok() && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    row.seq = static_cast<std::uint64_t>(sqlite3_column_int64(stmt, 0));
    row.tx = static_cast<std::uint64_t>(sqlite3_column_int64(stmt, 1));
    row.tx_time_ms = sqlite3_column_int64(stmt, 2);
    const void* body = sqlite3_column_blob(stmt, 3);
    const std::string_view stored(body ? static_cast<const char*>(body) : "",
                                  static_cast<std::size_t>(sqlite3_column_bytes(stmt, 3)));
    st = store::unpack_log_body(row.seq, stored, &row.body);
    if (st.ok()) st = each(row);
  }
  if (st.ok() && rc != SQLITE_DONE) st = sql_error(rc, "cannot read the log");
  sqlite3_finalize(stmt);
  return st;
}

Status GraphLog::row(std::uint64_t seq, bool* found, std::uint64_t* tx, std::int64_t* tx_time_ms) {
  DATALOG_RETURN_IF_ERROR(
      prepare(&row_stmt_, fmt::format("SELECT tx, tx_time FROM {} WHERE seq = ?", log_table())));
  sqlite3_bind_int64(row_stmt_, 1, static_cast<sqlite3_int64>(seq));
  const int rc = sqlite3_step(row_stmt_);
  *found = rc == SQLITE_ROW;
  if (*found) {
    *tx = static_cast<std::uint64_t>(sqlite3_column_int64(row_stmt_, 0));
    *tx_time_ms = sqlite3_column_int64(row_stmt_, 1);
  }
  sqlite3_reset(row_stmt_);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) return sql_error(rc, "cannot read the log");
  return Status::OK();
}

}  // namespace datalog::ext
