// extension/io/import_jsonl.h: JSON Lines into the graph (datalog_import), one object a line
// (blank lines skipped), each of one of two shapes:
//   - a fact, when it has the key "a": {"e": ":alice", "a": ":age", "v": 30} with optional
//     "vtype" (the store table's names), "valid_from" and "valid_to" (ISO text or integer ms) —
//     what datalog_export writes. "e" is ':ident', uuid text or an integer id.
//   - an entity: {":db/id": ":alice", ":name": "Alice", ":tags": ["a", "b"]}: every key that
//     begins with ':' but :db/id is an attribute, an array gives one fact per element. Without
//     :db/id the entity is found by its :db.unique/identity values, else made new (as a
//     transact entity map).
// Values without a vtype: a string is a string, a number an integer (no '.', 'e') or a float,
// true/false a boolean, null nil.
#pragma once

#include "extension/io/import_target.h"

namespace datalog::ext::io {

Status import_jsonl(ImportTarget& target);

}  // namespace datalog::ext::io
