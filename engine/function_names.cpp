#include "engine/function_names.h"

#include "engine/functions/regex.h"

#include "engine/functions/builtins.h"

namespace datalog {

bool is_builtin_function(std::string_view name) {
  // functions::find_builtin knows the pure functions; matches? (regex) and the binding
  // functions live in the evaluator.
  return functions::find_builtin(name) != nullptr || functions::is_regex_function(name) ||
         is_binding_function(name);
}

bool is_clause_form(std::string_view name) {
  return name == "not" || name == "not-join" || name == "or" || name == "or-join" || name == "and";
}

bool is_binding_function(std::string_view name) {
  return name == "get-else" || name == "missing?" || name == "ground";
}

}  // namespace datalog
