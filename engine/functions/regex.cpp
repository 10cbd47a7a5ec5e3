#include "engine/functions/regex.h"

#include <re2/re2.h>

#include <fmt/format.h>

namespace datalog::functions {

bool is_regex_function(std::string_view op) {
  return op == "matches?" || op == "re-find" || op == "re-matches";
}

std::size_t regex_pattern_argument(std::string_view op) { return op == "matches?" ? 1 : 0; }

Status compile_regex(std::string_view pattern, std::shared_ptr<const re2::RE2>* out) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_shared<const re2::RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!re->ok()) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("invalid regex pattern '{}': {}", pattern, re->error()));
  }
  *out = std::move(re);
  return Status::OK();
}

Status RegexCache::get(const std::string& pattern, const re2::RE2** out) {
  auto it = compiled_.find(pattern);
  if (it == compiled_.end()) {
    std::shared_ptr<const re2::RE2> re;
    DATALOG_RETURN_IF_ERROR(compile_regex(pattern, &re));
    it = compiled_.emplace(pattern, std::move(re)).first;
  }
  *out = it->second.get();
  return Status::OK();
}

CallResult call_regex(std::string_view op, const re2::RE2& re, const Value& subject) {
  if (!subject.is(ValueKind::String)) return CallResult::row_error();
  const re2::StringPiece text(subject.as_string());
  if (op == "matches?") return CallResult::of(Value::boolean(RE2::PartialMatch(text, re)));
  if (op == "re-matches") {
    return CallResult::of(RE2::FullMatch(text, re) ? subject : Value::nil());
  }
  re2::StringPiece found;
  if (re.Match(text, 0, text.size(), RE2::UNANCHORED, &found, 1)) {
    return CallResult::of(Value::string(std::string(found.data(), found.size())));
  }
  return CallResult::of(Value::nil());
}

}  // namespace datalog::functions
