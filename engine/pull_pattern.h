// engine/pull_pattern.h: the pattern of a `(pull ?e [...])` :find element, parsed once when the
// query is parsed (the evaluator is engine/eval/pull_evaluator.h).
//
// Grammar (Datomic's pull syntax, the parts that make sense without a schema):
//   pattern   = [element ...]
//   element   = *                         every attribute of the entity
//             | attr                      :person/name, or reverse :_friend / :person/_friend
//             | (attr option value ...)   options :as "key" | :as :kw, :limit n | nil, :default v
//             | (limit attr n) | (default attr v)     Datomic's older option forms
//             | {attr-spec sub ...}       follow references: sub is a pattern, `...` (recurse
//                                         without bound) or a positive integer (recurse n levels)
//   attr-spec = attr | (attr option value ...)
// A keyword whose name (the part after the last '/', or after ':') starts with '_' is a
// reverse reference: `:_friend` means "entities whose :friend is this one".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/edn_reader.h"
#include "engine/status.h"
#include "engine/value.h"

namespace datalog::pull {

struct Pattern;

// One attribute of a pattern, with its options and what to do with its values.
struct AttributeSpec {
  enum class Follow {
    None,     // values as they are (entities as their ident or id)
    Pattern,  // each value that names an entity becomes a nested object pulled with `sub`
    Recurse,  // each such value is pulled with the enclosing pattern again
  };
  std::string attribute;  // the forward attribute keyword, ":person/friend" (also for reverse)
  bool reverse = false;   // written :_friend or :person/_friend
  bool is_db_id = false;  // :db/id: the entity itself
  std::string key;        // the JSON key: :as, else the keyword as written (":_friend")
  std::optional<std::int64_t> limit;   // at most this many values
  std::optional<Value> default_value;  // used when the attribute has no value
  Follow follow = Follow::None;
  std::shared_ptr<const Pattern> sub;     // Follow::Pattern
  std::optional<std::int64_t> max_depth;  // Follow::Recurse: n levels; nullopt for `...`
  ast::SourcePos pos;
};

struct Element {
  bool wildcard = false;    // `*`
  AttributeSpec attribute;  // unless wildcard
};

struct Pattern {
  std::vector<Element> elements;
  bool has_wildcard = false;
};

// Parses the vector node of a pull expression; text is the source the node was read from
// (for quoting offending forms). Errors are positioned parse errors (engine/parse_error.h).
Status parse_pattern(const edn::Node& vector, std::string_view text, Pattern* out);

// Parses a pattern written on its own ("[:a {:b [*]}]"), for tests and tools.
Status parse_pattern_text(std::string_view text, Pattern* out);

}  // namespace datalog::pull
