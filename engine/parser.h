// engine/parser.h: Datalog text -> AST (engine/ast.h), for the dialect of LANGUAGE.md.
//
// A script is any number of top-level forms, each (transact ...), (retract ...), (query [...])
// or (rule [...]); every form becomes one Command, in order (we run every form — header rule 2;
// Minigraf ran only the first).
//
// Error format (the same for the EDN reader, the parser and the analyzer, engine/parse_error.h):
//   parse error at line L, column C: MESSAGE
// L and C are 1-based, C in bytes, and point at the offending form or element. MESSAGE is
// Minigraf's wording where Minigraf has one (including its ", got N" / ", got X" tails; X is the
// offending source text, cut at 60 bytes), e.g.
//   parse error at line 1, column 24: Pattern must have exactly 3 elements (E A V), got 2
// The status code is always StatusCode::InvalidArgument. On error *out is left empty.
//
// What the parser checks: shapes, arities of built-in functions, the positions a form or a
// value may take (§1-§17 and the header's extensions). What it leaves to engine/analyzer.h:
// variable safety, :with/aggregate binding, rule calls against the rule set, stratification.
// Callers run both.
//
// Choices the AST leaves open, fixed here:
//   - Fact::valid_from / valid_to hold the *effective* valid time of the fact (the per-fact map
//     wins key by key over the transaction map); Transact::valid_from / valid_to keep the
//     transaction map as written.
//   - Rule::source and QueryCommand::source are the exact text of the whole form, from its '('
//     to its ')'. Transact/Retract/Rule/Query::pos is the position of the form's '('.
//   - `$` before the arguments of get-else / missing? and in :in (Datomic's database source)
//     is dropped.
//   - #uuid in a value position stays a Uuid value; #inst (our extension) gives an Instant and is
//     accepted wherever an ISO 8601 string is (:valid-from, :valid-to, :as-of, :valid-at).
#pragma once

#include <functional>

#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog {

// interrupted (may be empty) is polled while a long text is read.
Status parse_script(std::string_view text, std::vector<ast::Command>* out,
                    const std::function<bool()>& interrupted = {});

}  // namespace datalog
