#include "extension/io/typed_text.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "engine/uuid_text.h"
#include "extension/io/text_codec.h"
#include "extension/sql_values.h"

namespace datalog::ext::io {

namespace {

std::string ident_text(const Value& ident) {
  return ident.is(ValueKind::Keyword) ? ident.as_keyword() : format_uuid(ident.as_uuid());
}

}  // namespace

std::optional<Value> entity_from_text(std::string_view text) {
  std::int64_t id = 0;
  if (parse_number(text, &id)) return Value::integer(id);
  return ident_from_text(text);
}

std::string entity_text(EntityId id, const std::optional<Value>& ident) {
  return ident ? ident_text(*ident) : fmt::format("{}", id);
}

std::string value_text(const Value& v, const std::optional<Value>& ref_ident) {
  switch (v.kind()) {
    case ValueKind::String: return v.as_string();
    case ValueKind::Integer: return fmt::format("{}", v.as_integer());
    case ValueKind::Float: {
      const double d = v.as_float();
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      return fmt::format("{}", d);  // shortest text that reads back exactly
    }
    case ValueKind::Boolean: return v.as_boolean() ? "true" : "false";
    case ValueKind::Instant: return format_instant(v.as_instant());
    case ValueKind::Ref: return entity_text(v.as_ref(), ref_ident);
    case ValueKind::Uuid: return format_uuid(v.as_uuid());
    case ValueKind::Keyword: return v.as_keyword();
    case ValueKind::Bytes: return hex_encode(v.as_bytes());
    case ValueKind::Nil: return {};
  }
  return {};
}

Status typed_value(std::string_view text, ValueKind kind, GraphWriter& graph,
                   std::optional<Value>* out, std::string* error) {
  out->reset();
  auto bad = [&](std::string_view what) {
    *error = fmt::format("'{}' is not {}", text, what);
    return Status::OK();
  };
  switch (kind) {
    case ValueKind::String: *out = Value::string(std::string(text)); break;
    case ValueKind::Integer: {
      std::int64_t i = 0;
      if (!parse_number(text, &i)) return bad("an integer");
      *out = Value::integer(i);
      break;
    }
    case ValueKind::Float: {
      double d = 0;
      if (text == "inf" || text == "-inf") {
        d = text == "inf" ? HUGE_VAL : -HUGE_VAL;
      } else if (!parse_number(text, &d) || std::isnan(d)) {
        return bad("a float");
      }
      *out = Value::floating(d);
      break;
    }
    case ValueKind::Boolean:
      if (text == "true" || text == "1") *out = Value::boolean(true);
      else if (text == "false" || text == "0") *out = Value::boolean(false);
      else return bad("a boolean (true, false, 1 or 0)");
      break;
    case ValueKind::Instant: {
      std::int64_t ms = 0;
      if (parse_number(text, &ms)) {
        *out = Value::instant(ms);
        break;
      }
      const TimeParse t = parse_instant(text);
      if (!t.ms) return bad(fmt::format("an instant ({})", t.error));
      *out = Value::instant(*t.ms);
      break;
    }
    case ValueKind::Ref: {
      const auto e = entity_from_text(text);
      if (!e) return bad("an entity (':ident', a uuid or an integer id)");
      if (e->is(ValueKind::Integer)) {
        *out = Value::ref(e->as_integer());
        break;
      }
      EntityId id = 0;
      DATALOG_RETURN_IF_ERROR(graph.resolve_ident(*e, &id));
      *out = Value::ref(id);
      break;
    }
    case ValueKind::Uuid: {
      const auto u = parse_uuid(text);
      if (!u) return bad("a uuid");
      *out = Value::uuid(*u);
      break;
    }
    case ValueKind::Keyword:
      if (!is_keyword_text(text)) return bad("a keyword (':name')");
      *out = Value::keyword(std::string(text));
      break;
    case ValueKind::Bytes: {
      auto bytes = hex_decode(text);
      if (!bytes) return bad("hex bytes");
      *out = Value::bytes(std::move(*bytes));
      break;
    }
    case ValueKind::Nil: *out = Value::nil(); break;
  }
  return Status::OK();
}

Value infer_value(std::string_view text) {
  std::int64_t i = 0;
  if (parse_number(text, &i)) return Value::integer(i);
  double d = 0;
  if (text.find_first_of(".eE") != std::string_view::npos && parse_number(text, &d) && std::isfinite(d)) {
    return Value::floating(d);
  }
  if (text == "true") return Value::boolean(true);
  if (text == "false") return Value::boolean(false);
  return Value::string(std::string(text));
}

}  // namespace datalog::ext::io
