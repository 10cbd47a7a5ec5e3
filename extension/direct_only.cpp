#include "extension/direct_only.h"

namespace datalog::ext {

int register_direct_only(sqlite3* db, void* user_data, std::span<const DirectOnlyFunction> functions) {
  for (const DirectOnlyFunction& f : functions) {
    const int rc = sqlite3_create_function_v2(db, f.name, f.args, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                              user_data, f.fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

}  // namespace datalog::ext
