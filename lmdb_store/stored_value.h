// lmdb_store/stored_value.h: the full (not order-preserving) byte form of a value, used where
// a value is stored as data rather than as a key: giant texts and ident names.
// Layout: one tag byte (ValueKind), then the raw payload (text bytes, 16 uuid bytes, ...).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "engine/value.h"

namespace datalog::store {

std::string encode_stored_value(const Value& value);
std::optional<Value> decode_stored_value(std::string_view bytes);

}  // namespace datalog::store
