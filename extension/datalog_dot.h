// extension/datalog_dot.h: datalog_dot(graph, query), a GraphViz DOT text of a query's facts.
//
//   SELECT datalog_dot('g', '(query [:find ?e ?a ?v :where [?e :friend _] [?e ?a ?v]])');
//
// The query's :find is an entity, an attribute and a value (three elements); every result row
// is one fact of the picture (dot_text.h): a value that is an entity is an edge, any other value
// a line in its entity's box. Entities are named by their idents (#id without one). Render it
// with `dot -Tpng`. Direct-only, like the other datalog_* functions.
#pragma once

#include "extension/sqlite_api.h"

namespace datalog::ext {

void datalog_dot(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept;

}  // namespace datalog::ext
