// extension/value_list_vtab.h: `datalog_values`, an eponymous table-valued function over a list
// of Datalog values that C++ passes in with sqlite3_bind_pointer. It is how an aggregate SQL
// function runs over a group of Datalog values (extension/sql_functions.h):
//
//   SELECT geomean(value) FROM datalog_values(?1)          -- ?1: a ValueList pointer
//
// Columns: value (the value in its SQL form, sql_values.h), ord (0-based position), and the
// HIDDEN argument `list`. Rows come in list order. Without a ValueList pointer (from SQL text,
// where none can be made) the table is empty.
#pragma once

#include <span>

#include "engine/value.h"
#include "extension/sql_values.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

inline constexpr const char* kValueListPointerType = "datalog_value_list";

struct ValueList {
  std::span<const Value> values;
  IdentNamer name_of;  // entities (refs) show as their ident, as everywhere in SQL
};

int register_value_list_module(sqlite3* db);

}  // namespace datalog::ext
