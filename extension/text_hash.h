// extension/text_hash.h: a transparent hash for maps keyed by text, so that a lookup by a
// string_view (an SQL argument's bytes) copies nothing.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace datalog::ext {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

}  // namespace datalog::ext
