// engine/uuid_text.h: the canonical 8-4-4-4-12 text form of a UUID, both ways.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog {

std::optional<Uuid> parse_uuid(std::string_view text);  // case-insensitive hex
std::string format_uuid(const Uuid& uuid);              // lowercase hex

}  // namespace datalog
