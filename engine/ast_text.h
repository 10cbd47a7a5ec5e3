// engine/ast_text.h: the AST printed back as Datalog text, in one canonical form.
//
// The text parses back to an equal AST (engine/parser.h), which is what tests, EXPLAIN output
// and error messages rely on. Canonical means: single spaces, sections in the order
// :find :with :in :where :as-of :valid-at :max-results :max-derived-facts, times as #inst,
// floats always with a '.', strings with \" \\ \n \t \r escaped. A transact's facts carry their
// effective valid time in a per-fact map.
#pragma once

#include <string>

#include "engine/ast.h"

namespace datalog {

std::string format_term(const ast::Term& term);
std::string format_clause(const ast::Clause& clause);
std::string format_query(const ast::Query& query);  // the query vector [...]
std::string format_command(const ast::Command& command);

}  // namespace datalog
