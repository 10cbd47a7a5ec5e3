#include "front_test_support.h"

#include <catch2/catch.hpp>

#include "engine/analyzer.h"
#include "engine/ast_text.h"
#include "engine/parser.h"

namespace datalog::testing {

namespace {

std::vector<ast::Command> parse_ok(std::string_view text) {
  std::vector<ast::Command> commands;
  const Status st = parse_script(text, &commands);
  INFO("text: " << text);
  INFO("error: " << st.message());
  REQUIRE(st.ok());
  return commands;
}

}  // namespace

ast::Command parse_one(std::string_view text) {
  auto commands = parse_ok(text);
  INFO("text: " << text);
  REQUIRE(commands.size() == 1);
  return std::move(commands[0]);
}

ast::Query query_of(std::string_view text) {
  auto command = parse_one(text);
  REQUIRE(std::holds_alternative<ast::QueryCommand>(command));
  return std::get<ast::QueryCommand>(std::move(command)).query;
}

ast::Rule rule_of(std::string_view text) {
  auto command = parse_one(text);
  REQUIRE(std::holds_alternative<ast::Rule>(command));
  return std::get<ast::Rule>(std::move(command));
}

std::vector<ast::Rule> rules_of(std::string_view script) {
  std::vector<ast::Rule> rules;
  for (auto& command : parse_ok(script)) {
    REQUIRE(std::holds_alternative<ast::Rule>(command));
    rules.push_back(std::get<ast::Rule>(std::move(command)));
  }
  return rules;
}

std::string canonical(std::string_view text) {
  std::string out;
  for (const auto& command : parse_ok(text)) {
    if (!out.empty()) out += "\n";
    out += format_command(command);
  }
  return out;
}

std::string parse_message(std::string_view text) {
  std::vector<ast::Command> commands;
  const Status st = parse_script(text, &commands);
  if (st.ok()) return "";
  CHECK(st.code() == StatusCode::InvalidArgument);
  CHECK(commands.empty());
  return st.message();
}

std::string check_message(std::string_view text) {
  for (const auto& command : parse_ok(text)) {
    const Status st = check_command(command);
    if (!st.ok()) {
      CHECK(st.code() == StatusCode::InvalidArgument);
      return st.message();
    }
  }
  return "";
}

}  // namespace datalog::testing
