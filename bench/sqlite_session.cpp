#include "sqlite_session.h"

#include <cstdio>
#include <cstdlib>

namespace bench {

void die(const std::string& what) {
  std::fprintf(stderr, "workload_bench: %s\n", what.c_str());
  std::exit(1);
}

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db), sql_(sql) {
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) {
    die("prepare failed: " + std::string(sqlite3_errmsg(db)) + "\n  in: " + sql);
  }
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_), sql_(std::move(other.sql_)) {
  other.stmt_ = nullptr;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::bind(int index, long long value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::bind(int index, const std::string& value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

long long Statement::run() {
  long long rows = 0;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) ++rows;
  if (rc != SQLITE_DONE) {
    const std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(stmt_);
    die("step failed: " + message + "\n  in: " + sql_);
  }
  sqlite3_reset(stmt_);
  return rows;
}

// Reads every column of the current row as its own type, as a client that uses the result does.
static void read_columns(sqlite3_stmt* stmt) {
  for (int i = 0, n = sqlite3_column_count(stmt); i < n; ++i) {
    switch (sqlite3_column_type(stmt, i)) {
      case SQLITE_INTEGER: static_cast<void>(sqlite3_column_int64(stmt, i)); break;
      case SQLITE_FLOAT: static_cast<void>(sqlite3_column_double(stmt, i)); break;
      case SQLITE_TEXT: static_cast<void>(sqlite3_column_text(stmt, i)); break;
      case SQLITE_BLOB: static_cast<void>(sqlite3_column_blob(stmt, i)); break;
      default: break;
    }
  }
}

long long Statement::run_or_throw() {
  long long rows = 0;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
    read_columns(stmt_);
    ++rows;
  }
  if (rc != SQLITE_DONE) {
    const std::string message = sqlite3_errmsg(db_);
    sqlite3_reset(stmt_);
    throw StepError(message);
  }
  sqlite3_reset(stmt_);
  return rows;
}

std::string Statement::column_text_rows(int column, const std::string& separator) {
  std::string out;
  while (sqlite3_step(stmt_) == SQLITE_ROW) {
    const unsigned char* text = sqlite3_column_text(stmt_, column);
    if (!out.empty()) out += separator;
    out += text != nullptr ? reinterpret_cast<const char*>(text) : "";
  }
  sqlite3_reset(stmt_);
  return out;
}

long long Statement::scalar() {
  if (sqlite3_step(stmt_) != SQLITE_ROW) die("no row from: " + sql_ + ": " + sqlite3_errmsg(db_));
  const long long value = sqlite3_column_int64(stmt_, 0);
  while (sqlite3_step(stmt_) == SQLITE_ROW) {}
  sqlite3_reset(stmt_);
  return value;
}

Connection::Connection(const std::string& path, bool load_datalog) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    die("cannot open " + path + ": " + sqlite3_errmsg(db_));
  }
  // Several connections share the files in the concurrency runs: wait for a lock, as an
  // application would, rather than fail on it.
  sqlite3_busy_timeout(db_, 10'000);
  if (!load_datalog) return;
  sqlite3_enable_load_extension(db_, 1);
  char* error = nullptr;
  if (sqlite3_load_extension(db_, datalog_extension_path().c_str(), nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : "unknown error";
    sqlite3_free(error);
    die("cannot load the extension " + datalog_extension_path() + ": " + message);
  }
}

Connection::Connection(Connection&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }

Connection::~Connection() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

void Connection::exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    die("exec failed: " + message + "\n  in: " + sql.substr(0, 300));
  }
}

std::string Connection::try_exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return "";
  const std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
  sqlite3_free(error);
  return message.empty() ? "error" : message;
}

std::string datalog_extension_path() {
  if (const char* env = std::getenv("DATALOG_EXTENSION"); env != nullptr && *env != '\0') return env;
  return DATALOG_EXTENSION_PATH;
}

std::string sql_quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) {
    quoted += c;
    if (c == '\'') quoted += '\'';
  }
  return quoted + "'";
}

}  // namespace bench
