// Helpers for the front-end tests: parse a text and get its one command, its canonical text
// (engine/ast_text.h) or its error message.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"

namespace datalog::testing {

// The single command of text; fails the test when text does not parse to exactly one.
ast::Command parse_one(std::string_view text);
ast::Query query_of(std::string_view text);
ast::Rule rule_of(std::string_view text);
std::vector<ast::Rule> rules_of(std::string_view script);

// format_command of every command, joined by "\n".
std::string canonical(std::string_view text);

// The message of the parse error of text ("" when it parses).
std::string parse_message(std::string_view text);

// Parses text (which must parse), then runs check_command on each command; the first failure's
// message, or "" when every check passes.
std::string check_message(std::string_view text);

}  // namespace datalog::testing
