// extension/query_vtab.h: Datalog queries as SQL tables.
//
// Named queries — a table whose columns are the :find elements:
//   CREATE VIRTUAL TABLE older USING datalog_query(g, '(query [:find ?name ?age :in ?min
//                                                   :where [?p :name ?name] [?p :age ?age]
//                                                          [(> ?age ?min)]])');
//   SELECT * FROM older(30);                           -- :in ?min is a HIDDEN column
//   SELECT o.name, s.amount FROM older(30) o JOIN salaries s ON s.person = o.name;
//   SELECT age FROM older WHERE min = 30 AND name = 'Alice';   -- name is pushed into the query
// Columns are named after the :find elements: ?name -> name, (count ?e) -> count_e,
// (rank :over ...) -> rank (duplicates get _2, _3). Each :in binding, then each bind slot
// ($name), is a HIDDEN column, in that order; all are required. An `=` on a plain :find
// variable's column is pushed into the query as a binding of that variable (except with window
// functions, whose values depend on the whole result), so the query starts from it instead of
// filtering afterwards. The query is parsed once, when the table is created or connected.
//
// Ad hoc queries, with nothing declared first (an eponymous table-valued function):
//   SELECT * FROM datalog_q('g', '(query [:find ?n :where [?p :name ?n]])');
//   SELECT c1, c2 FROM datalog_q('g', '(query [:find ?n ?a :in ?min :where ...])', 30);
// Its columns are c1 ... c8, the first eight :find elements as native SQL values (so results
// sort, compare and join like any column; unused ones are NULL), and a HIDDEN column `edn`
// with the whole row as EDN text. Arguments after the query fill the :in bindings, then the
// slots, in order. See README "Datalog from SQL" for why these columns.
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

class ConnectionContext;
int register_query_modules(sqlite3* db, ConnectionContext* context);

}  // namespace datalog::ext
