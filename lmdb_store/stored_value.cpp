#include "lmdb_store/stored_value.h"

#include "lmdb_store/key_coding.h"

namespace datalog::store {

std::string encode_stored_value(const Value& value) {
  std::string out;
  switch (value.kind()) {
    case ValueKind::String:
      out += static_cast<char>(value.kind());
      out += value.as_string();
      return out;
    case ValueKind::Keyword:
      out += static_cast<char>(value.kind());
      out += value.as_keyword();
      return out;
    case ValueKind::Bytes:
      out += static_cast<char>(value.kind());
      out += value.as_bytes();
      return out;
    default:
      encode_fixed_value(out, value);  // fixed-width kinds are already their own full form
      return out;
  }
}

std::optional<Value> decode_stored_value(std::string_view bytes) {
  if (bytes.empty()) return std::nullopt;
  const auto kind = static_cast<ValueKind>(bytes[0]);
  const std::string text(bytes.substr(1));
  switch (kind) {
    case ValueKind::String: return Value::string(text);
    case ValueKind::Keyword: return Value::keyword(text);
    case ValueKind::Bytes: return Value::bytes(text);
    default: {
      DecodedValue d = decode_fixed_value(bytes);
      if (!d.ok || d.length != bytes.size()) return std::nullopt;
      return d.value;
    }
  }
}

}  // namespace datalog::store
