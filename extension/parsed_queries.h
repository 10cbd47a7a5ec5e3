// extension/parsed_queries.h: ad hoc queries parsed once per distinct text.
//
// `SELECT ... FROM datalog_q('g', '(query ...)')` run again and again (a prepared statement in a
// loop, or the same text from many statements) parses and checks its query the first time only.
// The cache belongs to one connection's datalog_q table and keeps queries as text_cache.h says:
// texts of up to 16 KiB, 256 KiB of text and 256 texts in all.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/step_memo.h"
#include "engine/status.h"
#include "extension/text_cache.h"

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

  static constexpr TextCacheBounds kBounds{16 * 1024, 256 * 1024, 256};

 private:
  TextCache<ParsedQuery> cache_{kBounds};
};

}  // namespace datalog::ext
