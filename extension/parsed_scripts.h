// extension/parsed_scripts.h: datalog_exec scripts parsed once per distinct text.
//
// An application that runs the same script again (a statement prepared once and stepped in a
// loop, a fixed command) pays for reading its EDN once: parsing was about 45% of a 100-fact
// transact or retract. Kept as text_cache.h says: scripts of up to 16 KiB, 256 KiB of text in
// all. Only scripts that parse are kept: a failing text reports its error again on every call.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/status.h"
#include "extension/text_cache.h"

namespace datalog::ext {

class ParsedScripts {
 public:
  using Commands = std::vector<ast::Command>;

  // The commands of text: the kept ones, else parsed now (and kept when text is small enough).
  // interrupted is polled while parsing, as parse_script polls it.
  Status get(std::string_view text, const std::function<bool()>& interrupted,
             std::shared_ptr<const Commands>* out);

  static constexpr TextCacheBounds kBounds{16 * 1024, 256 * 1024, 4096};

 private:
  TextCache<Commands> cache_{kBounds};
};

}  // namespace datalog::ext
