// engine/parse_error.h: the one format of every positioned error of the engine's front end.
//
// The EDN reader, the parser and the analyzer all report a user's mistake as
//   parse error at line L, column C: MESSAGE
// where L and C are 1-based and C counts bytes (ast::SourcePos), and MESSAGE keeps Minigraf's
// wording where Minigraf has one (LANGUAGE.md header rule 6). The code is always
// StatusCode::InvalidArgument. Checks that concern a set of rules rather than one text
// (stratification) have no position and use MESSAGE alone.
#pragma once

#include <string_view>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog {

Status parse_error(ast::SourcePos pos, std::string_view message);

}  // namespace datalog
