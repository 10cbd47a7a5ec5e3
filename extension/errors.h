// extension/errors.h: store Status -> SQLite result codes and messages, and the exception
// barrier every SQLite callback runs behind.
#pragma once

#include <exception>
#include <new>
#include <string>

#include "extension/sqlite_api.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext {

int sqlite_code(const store::Status& status);

// Replaces vtab->zErrMsg with "datalog: <message>".
void set_vtab_error(sqlite3_vtab* vtab, const std::string& message);
// Sets the vtab error from status and returns its SQLite code (SQLITE_OK when ok).
int report(sqlite3_vtab* vtab, const store::Status& status);

// After std::bad_alloc: the query memory limit's error when the query's budget refused a buffer
// (engine/query_memory.h), else an empty message (the process is out of memory).
std::string memory_limit_message();

// Runs body (returning an SQLite code); a C++ exception becomes SQLITE_NOMEM or SQLITE_ERROR
// with a message instead of crossing into SQLite.
template <typename Body>
int guarded(sqlite3_vtab* vtab, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    const std::string message = memory_limit_message();
    if (message.empty() || !vtab) return SQLITE_NOMEM;
    set_vtab_error(vtab, message);
    return SQLITE_ERROR;
  } catch (const std::exception& e) {
    if (vtab) set_vtab_error(vtab, std::string("internal error: ") + e.what());
    return SQLITE_ERROR;
  } catch (...) {
    if (vtab) set_vtab_error(vtab, "internal error");
    return SQLITE_ERROR;
  }
}

}  // namespace datalog::ext
