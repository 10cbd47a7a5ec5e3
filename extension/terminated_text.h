// extension/terminated_text.h: text handed to SQLite together with its terminator.
//
// SQLite stores text given with an explicit length without a terminator, and each
// sqlite3_column_text() or sqlite3_value_text() on it then allocates a terminated copy: an
// allocation for every row a client reads. Text handed over with the length -1 is stored marked as
// terminated. These take text that is followed by a NUL (a std::string's, or a view of a whole
// one) and pass -1 unless the text holds a NUL of its own, which -1 would cut off.
#pragma once

#include <cstring>
#include <string_view>

#include "extension/sqlite_api.h"

namespace datalog::ext {

// The length to give SQLite for text followed by a NUL.
inline int terminated_length(std::string_view text) {
  if (text.empty()) return 0;
  if (std::memchr(text.data(), '\0', text.size())) return static_cast<int>(text.size());
  return -1;
}

inline void result_terminated_text(sqlite3_context* ctx, std::string_view text, sqlite3_destructor_type how) {
  sqlite3_result_text(ctx, text.empty() ? "" : text.data(), terminated_length(text), how);
}

inline int bind_terminated_text(sqlite3_stmt* stmt, int index, std::string_view text, sqlite3_destructor_type how) {
  return sqlite3_bind_text(stmt, index, text.empty() ? "" : text.data(), terminated_length(text), how);
}

}  // namespace datalog::ext
