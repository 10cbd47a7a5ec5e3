// SQL text as values take it: whole text values, quoted identifiers, kind names, idents.
#include "extension/sql_values.h"

#include "engine/uuid_text.h"

namespace datalog::ext {

namespace {

constexpr ValueKind kAllKinds[] = {ValueKind::String,  ValueKind::Integer, ValueKind::Float,
                                   ValueKind::Boolean, ValueKind::Keyword, ValueKind::Ref,
                                   ValueKind::Instant, ValueKind::Uuid,    ValueKind::Bytes,
                                   ValueKind::Nil};

}  // namespace

std::string_view text_of(sqlite3_value* v) {
  if (sqlite3_value_type(v) == SQLITE_TEXT) {
    // Not sqlite3_value_text: text bound with its length (as Python and most clients bind) has
    // no terminator, and adding one reallocates the value. sqlite3_value_bytes turns text of
    // another encoding (a UTF-16 database) into UTF-8 first; sqlite3_value_blob then gives the
    // bytes as they are, and the value stays TEXT.
    const int n = sqlite3_value_bytes(v);
    const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
    return p ? std::string_view(p, static_cast<std::size_t>(n)) : "";
  }
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  return p ? std::string_view(p, static_cast<std::size_t>(sqlite3_value_bytes(v))) : "";
}

std::string quote_identifier(const std::string& name) {
  std::string out = "\"";
  for (char c : name) {
    out += c;
    if (c == '"') out += '"';
  }
  return out + "\"";
}

std::optional<ValueKind> kind_from_name(std::string_view name) {
  for (ValueKind k : kAllKinds) {
    if (kind_name(k) == name) return k;
  }
  return std::nullopt;
}

std::string kind_names_list() {
  std::string s;
  for (ValueKind k : kAllKinds) {
    if (!s.empty()) s += ", ";
    s += kind_name(k);
  }
  return s;
}

bool is_keyword_text(std::string_view text) {
  if (text.size() < 2 || text[0] != ':') return false;
  for (char c : text.substr(1)) {
    if (c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == '"' || c == '(' ||
        c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == ';') {
      return false;
    }
  }
  return true;
}

std::optional<Value> ident_from_text(std::string_view text) {
  if (is_keyword_text(text)) return Value::keyword(std::string(text));
  if (auto u = parse_uuid(text)) return Value::uuid(*u);
  return std::nullopt;
}

}  // namespace datalog::ext
