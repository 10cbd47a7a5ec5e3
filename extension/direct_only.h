// extension/direct_only.h: registering SQL functions that only SQL the application runs may call
// (SQLITE_DIRECTONLY): never a view, trigger, default or index of a schema, which may come from
// someone else (README, "Threat model").
#pragma once

#include <span>

#include "extension/sqlite_api.h"

namespace datalog::ext {

struct DirectOnlyFunction {
  const char* name;
  int args;
  void (*fn)(sqlite3_context*, int, sqlite3_value**);
};

// Registers each function (UTF-8, direct-only) with user_data as its sqlite3_user_data.
int register_direct_only(sqlite3* db, void* user_data, std::span<const DirectOnlyFunction> functions);

}  // namespace datalog::ext
