// bench/sqlite_session.h: the thin SQLite layer the benchmark programs share.
//
// A Connection owns one sqlite3 handle; a Statement owns one prepared statement and runs it to
// completion, counting the rows. The benchmark is a program, not a library: any SQLite error is
// fatal and printed with the SQL that caused it (a benchmark that carries on after an error
// would report the cost of failing).
#pragma once

#include <sqlite3.h>

#include <stdexcept>
#include <string>

namespace bench {

[[noreturn]] void die(const std::string& what);

// An SQLite error while running a measured statement.
struct StepError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  void bind(int index, long long value);
  void bind(int index, double value);
  void bind(int index, const std::string& value);
  // Steps to the end, resets, and returns the number of rows produced.
  long long run();
  // Runs a statement that yields one row and returns its first column as an integer.
  long long scalar();
  // Steps to the end and joins column `column` of every row with `separator`.
  std::string column_text_rows(int column, const std::string& separator);
  // Like run(), but reads every column of every row (a measured call uses its result), and a
  // failing step throws StepError (the caller records it and moves on).
  long long run_or_throw();

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

class Connection {
 public:
  // Opens `path` (read-write, created if missing); with `load_datalog` loads the extension.
  Connection(const std::string& path, bool load_datalog);
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&&) = delete;
  Connection(const Connection&) = delete;
  ~Connection();

  void exec(const std::string& sql);
  Statement prepare(const std::string& sql) { return Statement(db_, sql); }
  // exec() that returns SQLite's message instead of stopping the program ("" on success).
  std::string try_exec(const std::string& sql);
  sqlite3* raw() { return db_; }

 private:
  sqlite3* db_ = nullptr;
};

// The built extension's path: $DATALOG_EXTENSION if set, else the path CMake compiled in.
std::string datalog_extension_path();

// Quotes `text` as an SQL string literal.
std::string sql_quote(const std::string& text);

}  // namespace bench
