// engine/functions/regex.h: the regex functions of the dialect, on RE2.
//
//   [(matches? ?s "item-\\d+")]     true when the pattern is found anywhere in ?s (§8)
//   [(re-find "\\d+" ?s) ?m]        the first match, or nil             (Clojure's re-find)
//   [(re-matches "\\d+" ?s) ?m]     ?s when the whole string matches, else nil
// Patterns are string literals in the query, compiled when it is parsed (a bad one is a parse
// error: "invalid regex pattern") and once per run (RegexCache). RE2 runs in linear time with
// no recursion, so no pattern can blow the stack or take exponential time. Its syntax is close
// to Minigraf's regex-lite. A subject that is not a string is a row error.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engine/functions/builtins.h"
#include "engine/status.h"
#include "engine/value.h"

namespace re2 {
class RE2;
}

namespace datalog::functions {

bool is_regex_function(std::string_view op);
// Position of the pattern argument: 1 for matches? (subject first), 0 for re-find/re-matches.
std::size_t regex_pattern_argument(std::string_view op);

Status compile_regex(std::string_view pattern, std::shared_ptr<const re2::RE2>* out);

class RegexCache {
 public:
  Status get(const std::string& pattern, const re2::RE2** out);

 private:
  std::unordered_map<std::string, std::shared_ptr<const re2::RE2>> compiled_;
};

CallResult call_regex(std::string_view op, const re2::RE2& re, const Value& subject);

}  // namespace datalog::functions
