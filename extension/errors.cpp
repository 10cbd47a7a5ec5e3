#include "extension/errors.h"

#include "engine/eval/eval_context.h"
#include "engine/query_memory.h"

namespace datalog::ext {

int sqlite_code(const store::Status& status) {
  using store::StatusCode;
  switch (status.code()) {
    case StatusCode::Ok: return SQLITE_OK;
    case StatusCode::Busy: return SQLITE_BUSY;
    case StatusCode::Full:
    case StatusCode::MapFull:
    case StatusCode::MapGrown: return SQLITE_FULL;
    case StatusCode::NotAGraph: return SQLITE_NOTADB;
    case StatusCode::TooNew: return SQLITE_CANTOPEN;
    case StatusCode::ReadOnly: return SQLITE_READONLY;
    case StatusCode::CantOpen: return SQLITE_CANTOPEN;
    case StatusCode::Corrupt: return SQLITE_CORRUPT;
    case StatusCode::InvalidArgument: return SQLITE_ERROR;
    case StatusCode::Misuse: return SQLITE_MISUSE;
    case StatusCode::IoError: return SQLITE_IOERR;
    case StatusCode::Interrupted: return SQLITE_INTERRUPT;
    case StatusCode::Internal: return SQLITE_ERROR;
  }
  return SQLITE_ERROR;
}

void set_vtab_error(sqlite3_vtab* vtab, const std::string& message) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("datalog: %s", message.c_str());
}

std::string memory_limit_message() {
  const std::optional<QueryMemory::Refusal> refusal = QueryMemory::take_refusal();
  if (!refusal) return std::string();
  eval::Limits limits;
  limits.max_memory_bytes = static_cast<std::int64_t>(refusal->budget);
  return eval::max_memory_exceeded(limits, refusal->held).message();
}

int report(sqlite3_vtab* vtab, const store::Status& status) {
  if (status.ok()) return SQLITE_OK;
  set_vtab_error(vtab, status.message());
  return sqlite_code(status);
}

}  // namespace datalog::ext
