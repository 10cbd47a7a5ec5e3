// lmdb_store/status.h: the outcome of a fallible store operation.
//
// Expected failures (busy, full disk, a file that is not a graph, bad input) are Status values,
// never exceptions. Each carries a code the SQLite glue maps to a result code, and a message
// that says what happened and where. Status is a plain value type: cheap to move, safe to copy.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace datalog::store {

enum class StatusCode {
  Ok,
  Busy,             // another writer holds the graph; try again later
  Full,             // disk or map full
  NotAGraph,        // the file exists but is not a graph of ours
  TooNew,           // written by a newer format version
  ReadOnly,         // the graph cannot be written
  CantOpen,         // the file or its folder cannot be opened or created
  Corrupt,          // the file's contents break an invariant
  InvalidArgument,  // the caller passed a value that cannot be stored
  Misuse,           // API used against its contract (wrong thread, no transaction)
  IoError,
  Internal,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  static Status OK() { return Status(); }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::Ok;
  std::string message_;
};

// Maps an LMDB or errno return code to a Status whose message names the operation.
Status status_from_mdb(int rc, std::string_view what);

#define DATALOG_RETURN_IF_ERROR(expr)            \
  do {                                           \
    ::datalog::store::Status _st = (expr);       \
    if (!_st.ok()) return _st;                   \
  } while (0)

}  // namespace datalog::store
