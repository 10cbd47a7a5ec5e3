// extension/datalog_functions.h: Datalog through SQL functions.
//
//   SELECT datalog_exec('g', '(transact [[:alice :age 30]]) (query [:find ?a :where [_ :age ?a]])');
//   SELECT datalog_explain('g', '(query [:find ?v :where [:e0 :val ?v]])');
//   SELECT datalog_rules('g');               -- the rules stored in g's graph, one per line
//   SELECT datalog_drop_rule('g', 'reach');  -- removes every rule named reach; returns how many
//   SELECT datalog_dot('g', '(query [:find ?e ?a ?v :where [?e ?a ?v]])');  -- GraphViz DOT text
//                                            (datalog_dot.h)
//
// The first argument names a store table of this connection ("g" or "schema.g").
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

class ConnectionContext;
int register_datalog_functions(sqlite3* db, ConnectionContext* context);

}  // namespace datalog::ext
