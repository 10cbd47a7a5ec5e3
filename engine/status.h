// engine/status.h: the outcome of a fallible operation, in every layer.
//
// Expected failures (busy, full disk, a file that is not a graph, bad input, a query error) are
// Status values, never exceptions. Each carries a code the SQLite glue maps to a result code,
// and a message that says what happened and where. Status is a plain value type.
#pragma once

#include <memory>
#include <string>
#include <utility>

namespace datalog {

enum class StatusCode {
  Ok,
  Busy,             // another writer holds the graph; try again later
  Full,             // the disk is full
  MapFull,          // the index's memory map is full (it must grow before the write succeeds)
  MapGrown,         // the map was full and has grown: the rolled-back transaction can run again
  NotAGraph,        // the file exists but is not a graph of ours
  TooNew,           // written by a newer format version
  ReadOnly,         // the graph cannot be written
  CantOpen,         // the file or its folder cannot be opened or created
  Corrupt,          // the file's contents break an invariant
  InvalidArgument,  // the caller passed a value that cannot be stored
  Misuse,           // API used against its contract (wrong thread, no transaction)
  IoError,
  Interrupted,      // sqlite3_interrupt or a caller's cancellation
  Internal,
};

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(message.empty() ? nullptr : std::make_unique<std::string>(std::move(message))) {}
  Status(const Status& other) : code_(other.code_), message_(copy_of(other.message_)) {}
  Status& operator=(const Status& other) {
    if (this != &other) {
      code_ = other.code_;
      message_ = copy_of(other.message_);
    }
    return *this;
  }
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  static Status OK() { return Status(); }

  bool ok() const { return code_ == StatusCode::Ok; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_ ? *message_ : kNoMessage; }

 private:
  // The message lives apart, so a success (returned by every call of every row's loop) is a code
  // and a null pointer to make and to drop, where an inline std::string took four stores.
  static std::unique_ptr<std::string> copy_of(const std::unique_ptr<std::string>& m) {
    return m ? std::make_unique<std::string>(*m) : nullptr;
  }
  inline static const std::string kNoMessage;

  StatusCode code_ = StatusCode::Ok;
  std::unique_ptr<std::string> message_;
};

#define DATALOG_RETURN_IF_ERROR(expr)   \
  do {                                  \
    ::datalog::Status _st = (expr);     \
    if (!_st.ok()) return _st;          \
  } while (0)

}  // namespace datalog
