// extension/io/import_csv.h: CSV into the graph (datalog_import), two shapes told apart by the
// header (the first record):
//   - facts: the header begins e,a,v; optional columns vtype, valid_from, valid_to (what
//     datalog_export writes). One fact per row, typed as the store table types (v, vtype)
//     (typed_text.h); without vtype the value is inferred (integer, float, true/false, string).
//   - entities: any other header. One entity per row: the column named :db/id, else the first,
//     names the entity (':ident', a uuid, an integer id, or a bare name, which becomes the
//     keyword :name); every other column is an attribute (its header, with a ':' added when it
//     has none) and each non-empty cell one fact, its value inferred, or read as the column's
//     type when its header says one: `age:integer`, `:person/score:float`, `friend:ref` (a
//     vtype name after the last ':'; the cells read as the facts shape reads v with a vtype).
#pragma once

#include "extension/io/import_target.h"

namespace datalog::ext::io {

Status import_csv(ImportTarget& target);

}  // namespace datalog::ext::io
