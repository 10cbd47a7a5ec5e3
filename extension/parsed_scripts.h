// extension/parsed_scripts.h: datalog_exec scripts parsed once per distinct text.
//
// An application that runs the same script again (a statement prepared once and stepped in a
// loop, a fixed command) pays for reading its EDN once, as datalog_q does for its queries
// (parsed_queries.h): parsing was about 45% of a 100-fact transact or retract. Parsing depends
// on the text alone (no clock, no graph), so a parse is as good the next time. The cache
// belongs to one connection. It keeps scripts of up to kMaxTextBytes (a bulk load's text is read
// once and dropped) and at most kMaxTotalBytes of text in all, starting over when full: a parsed
// script takes more memory than its text (each fact's values, positions and vectors), and the
// bound on text bounds that too. Only scripts that parse are kept: a failing text reports its
// error again on every call.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"
#include "extension/text_hash.h"

namespace datalog::ext {

class ParsedScripts {
 public:
  using Commands = std::vector<ast::Command>;

  // The commands of text: the kept ones, else parsed now (and kept when text is small enough).
  // interrupted is polled while parsing, as parse_script polls it.
  Status get(std::string_view text, const std::function<bool()>& interrupted,
             std::shared_ptr<const Commands>* out);

  static constexpr std::size_t kMaxTextBytes = 16 * 1024;
  static constexpr std::size_t kMaxTotalBytes = 256 * 1024;

 private:
  std::unordered_map<std::string, std::shared_ptr<const Commands>, TextHash, std::equal_to<>> entries_;
  std::size_t total_bytes_ = 0;
};

}  // namespace datalog::ext
