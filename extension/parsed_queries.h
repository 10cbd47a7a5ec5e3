// extension/parsed_queries.h: ad hoc queries parsed once per distinct text.
//
// `SELECT ... FROM datalog_q('g', '(query ...)')` run again and again (a prepared statement in a
// loop, or the same text from many statements) parses and checks its query the first time only.
// The cache belongs to one connection's datalog_q table; it holds at most kMaxEntries texts and
// starts over when full. Entries are shared, so a cursor keeps its query while another call
// replaces the cache's contents.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/step_memo.h"
#include "engine/status.h"
#include "extension/text_hash.h"

namespace datalog::ext {

struct ParsedQuery {
  ast::Query query;
  std::vector<std::string> slots;  // $names in order of first appearance
  // The planner's choices from the text's last calls; not part of what was parsed, so kept
  // even though the entry is shared as const.
  mutable eval::StepMemo step_memo;
};

class ParsedQueries {
 public:
  // The parsed and checked query of text, or its parse or analysis error.
  Status get(std::string_view text, std::shared_ptr<const ParsedQuery>* out);

 private:
  static constexpr std::size_t kMaxEntries = 256;
  // Looked up by the argument's bytes as they are (text_hash.h): a hit copies nothing.
  std::unordered_map<std::string, std::shared_ptr<const ParsedQuery>, TextHash, std::equal_to<>> entries_;
};

}  // namespace datalog::ext
