#include "engine/value_hash.h"

#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <string_view>

namespace datalog {

namespace {

std::size_t mix(std::size_t kind, std::size_t payload) {
  return (payload ^ (kind * 0x9e3779b97f4a7c15ULL)) * 0xff51afd7ed558ccdULL;
}

}  // namespace

std::size_t hash_value(const Value& v) {
  const auto kind = static_cast<std::size_t>(v.kind());
  switch (v.kind()) {
    case ValueKind::String: return mix(kind, std::hash<std::string_view>{}(v.as_string()));
    case ValueKind::Integer: return mix(kind, static_cast<std::size_t>(v.as_integer()));
    case ValueKind::Float: {
      // Equal floats hash equal: -0.0 as 0.0, and every NaN as one (they compare equal).
      double d = v.as_float() == 0.0 ? 0.0 : v.as_float();
      if (std::isnan(d)) d = std::numeric_limits<double>::quiet_NaN();
      return mix(kind, std::bit_cast<std::size_t>(d));
    }
    case ValueKind::Boolean: return mix(kind, v.as_boolean() ? 1 : 0);
    case ValueKind::Instant: return mix(kind, static_cast<std::size_t>(v.as_instant()));
    case ValueKind::Ref: return mix(kind, static_cast<std::size_t>(v.as_ref()));
    case ValueKind::Uuid: {
      std::size_t h = 0;
      for (auto b : v.as_uuid().bytes) h = h * 131 + b;
      return mix(kind, h);
    }
    case ValueKind::Keyword: return mix(kind, std::hash<std::string_view>{}(v.as_keyword()));
    case ValueKind::Bytes: return mix(kind, std::hash<std::string_view>{}(v.as_bytes()));
    case ValueKind::Nil: return mix(kind, 0);
  }
  return 0;
}

}  // namespace datalog
