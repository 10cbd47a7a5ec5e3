// extension/query_arguments.h: running a parsed query for SQL — turning SQL arguments into
// :in bindings and slot values, and query results back into SQL values.
//
// SQL -> Datalog, for :in arguments and bind slots: INTEGER -> integer, REAL -> float,
// TEXT ':name' -> keyword, other TEXT -> string, BLOB -> bytes, NULL -> nil. Tuple,
// collection and relation bindings take EDN text: '[1 2]', '[:a :b]', '[[1 "x"] [2 "y"]]'.
// The rows themselves come from query_results.h.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/query_runner.h"
#include "extension/graph_session.h"
#include "extension/sqlite_api.h"

namespace datalog::ext {

Value datalog_value_of(sqlite3_value* v);
// The relation an :in binding takes from one SQL argument.
Status in_binding_relation(const ast::InBinding& binding, sqlite3_value* arg, eval::Relation* out);

// Every slot ($name) a query mentions, in order of first appearance.
std::vector<std::string> query_slots(const ast::Query& query);

}  // namespace datalog::ext
