// The parser and the analyzer on any text: commands that pass their checks, or an error that
// says where; the rule set of a script is stratified like a graph's.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>
#include <vector>

#include "engine/analyzer.h"
#include "engine/parser.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<datalog::ast::Command> commands;
  if (!datalog::parse_script(text, &commands).ok()) return 0;
  std::vector<datalog::ast::Rule> rules;
  for (const auto& command : commands) {
    if (!datalog::check_command(command).ok()) continue;
    if (const auto* rule = std::get_if<datalog::ast::Rule>(&command)) rules.push_back(*rule);
  }
  (void)datalog::check_rule_set(rules);
  return 0;
}
