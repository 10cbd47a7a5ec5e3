// SQL values read as Datalog values and entities: what INSERT and UPDATE store, and what a
// constraint in WHERE can equal.
#include "extension/sql_values.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/time_text.h"
#include "engine/uuid_text.h"

namespace datalog::ext {

namespace {

std::string sql_repr(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return fmt::format("{}", sqlite3_value_int64(v));
    case SQLITE_FLOAT: return fmt::format("{}", sqlite3_value_double(v));
    case SQLITE_TEXT: return fmt::format("'{}'", text_of(v));
    case SQLITE_BLOB: return fmt::format("a {}-byte blob", sqlite3_value_bytes(v));
    default: return "NULL";
  }
}

Converted fail(std::string message) { return Converted{std::nullopt, std::move(message)}; }
Converted ok(Value v) { return Converted{std::move(v), {}}; }

bool exact_int(double d, std::int64_t* out) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return false;
  const auto i = static_cast<std::int64_t>(d);
  if (static_cast<double>(i) != d) return false;
  *out = i;
  return true;
}

// Instants print as ISO text with four-digit years; outside them the text would not read back.
constexpr std::int64_t kMinInstantMs = -62'167'219'200'000;  // 0000-01-01T00:00:00.000Z
constexpr std::int64_t kMaxInstantMs = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z

}  // namespace

store::Status entity_from_sql(sqlite3_value* v, const IdentResolver& resolve,
                              std::optional<EntityId>* out, std::string* error) {
  out->reset();
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      *out = sqlite3_value_int64(v);
      return store::Status::OK();
    case SQLITE_FLOAT: {
      std::int64_t id = 0;
      if (!exact_int(sqlite3_value_double(v), &id)) break;
      *out = id;
      return store::Status::OK();
    }
    case SQLITE_TEXT: {
      auto name = ident_from_text(text_of(v));
      if (!name) break;
      return resolve(*name, out);
    }
    default:
      break;
  }
  *error = fmt::format(
      "an entity is an integer id, a keyword (':alice') or a uuid; got {}", sql_repr(v));
  return store::Status::OK();
}

Converted instant_from_sql(sqlite3_value* v, std::string_view what) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: {
      const std::int64_t ms = sqlite3_value_int64(v);
      if (ms < kMinInstantMs || ms > kMaxInstantMs) {
        return fail(fmt::format("{}: {} ms is outside the years 0000 to 9999", what, ms));
      }
      return ok(Value::instant(ms));
    }
    case SQLITE_TEXT: {
      TimeParse t = parse_instant(text_of(v));
      if (t.ms) return ok(Value::instant(*t.ms));
      return fail(fmt::format("{}: {}", what, t.error));
    }
    default:
      return fail(fmt::format("{} must be an ISO 8601 UTC text or integer milliseconds, got {}",
                              what, sql_repr(v)));
  }
}

namespace {

Converted float_from_sql(sqlite3_value* v) {
  const double d = sqlite3_value_double(v);
  if (std::isnan(d)) return fail("cannot store NaN as a value");
  return ok(Value::floating(d));
}

Value bytes_from_sql(sqlite3_value* v) {
  const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
  return Value::bytes(std::string(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(v))));
}

// Without a vtype: the Datalog value of the SQL value's own type.
Converted value_of_sql_type(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return ok(Value::integer(sqlite3_value_int64(v)));
    case SQLITE_FLOAT: return float_from_sql(v);
    case SQLITE_TEXT: return ok(Value::string(std::string(text_of(v))));
    case SQLITE_BLOB: return ok(bytes_from_sql(v));
    default: return ok(Value::nil());
  }
}

// A reference: an entity as entity_from_sql reads it; integer ids only below the idents' ids.
Converted ref_from_sql(sqlite3_value* v, const IdentResolver& resolve) {
  const int type = sqlite3_value_type(v);  // before entity_from_sql reads v
  std::optional<EntityId> id;
  std::string error;
  const store::Status st = entity_from_sql(v, resolve, &id, &error);
  if (!st.ok()) return fail(st.message());
  if (!id) return fail(error.empty() ? "unknown entity" : error);
  if (type != SQLITE_TEXT && !is_application_entity_id(*id)) {
    return fail(fmt::format("integer entity ids must be below {} (2^52); larger ids belong to idents",
                            kFirstIdentEntityId));
  }
  return ok(Value::ref(*id));
}

// The value of kind (the vtype column) that v stands for, or why it stands for none.
Converted value_of_kind(sqlite3_value* v, ValueKind kind, const IdentResolver& resolve) {
  const int type = sqlite3_value_type(v);
  auto mismatch = [&](std::string_view expected) {
    return fail(fmt::format("value {} cannot be stored as {}: expected {}", sql_repr(v),
                            kind_name(kind), expected));
  };
  switch (kind) {
    case ValueKind::String:
      if (type != SQLITE_TEXT) return mismatch("TEXT");
      return ok(Value::string(std::string(text_of(v))));
    case ValueKind::Integer:
      if (type != SQLITE_INTEGER) return mismatch("an INTEGER");
      return ok(Value::integer(sqlite3_value_int64(v)));
    case ValueKind::Float:
      if (type != SQLITE_FLOAT && type != SQLITE_INTEGER) return mismatch("a number");
      return float_from_sql(v);
    case ValueKind::Boolean:
      if (type == SQLITE_INTEGER && (sqlite3_value_int64(v) == 0 || sqlite3_value_int64(v) == 1)) {
        return ok(Value::boolean(sqlite3_value_int64(v) == 1));
      }
      if (type == SQLITE_TEXT) {
        const std::string_view text = text_of(v);
        if (text == "true" || text == "false") return ok(Value::boolean(text == "true"));
      }
      return mismatch("0, 1, 'true' or 'false'");
    case ValueKind::Keyword:
      if (type != SQLITE_TEXT) return mismatch("TEXT ':name'");
      if (const std::string_view text = text_of(v); is_keyword_text(text)) {
        return ok(Value::keyword(std::string(text)));
      }
      return mismatch("TEXT ':name'");
    case ValueKind::Ref:
      return ref_from_sql(v, resolve);
    case ValueKind::Instant:
      return instant_from_sql(v, "an instant value");
    case ValueKind::Uuid: {
      if (type != SQLITE_TEXT) return mismatch("TEXT 8-4-4-4-12");
      auto u = parse_uuid(text_of(v));
      if (!u) return fail(fmt::format("Invalid UUID {}", sql_repr(v)));
      return ok(Value::uuid(*u));
    }
    case ValueKind::Bytes:
      if (type == SQLITE_BLOB || type == SQLITE_TEXT) return ok(bytes_from_sql(v));
      return mismatch("a BLOB");
    case ValueKind::Nil:
      if (type != SQLITE_NULL) return mismatch("NULL");
      return ok(Value::nil());
  }
  return fail("unknown value kind");
}

}  // namespace

Converted value_from_sql(sqlite3_value* v, sqlite3_value* vtype, const IdentResolver& resolve) {
  if (vtype == nullptr || sqlite3_value_type(vtype) == SQLITE_NULL) return value_of_sql_type(v);
  const std::string_view name = text_of(vtype);
  const auto kind = kind_from_name(name);
  if (!kind) {
    return fail(fmt::format("unknown vtype '{}'; expected one of: {}", name, kind_names_list()));
  }
  return value_of_kind(v, *kind, resolve);
}

std::vector<Value> equal_candidates(sqlite3_value* v, std::optional<ValueKind> kind,
                                    const IdentResolver& lookup) {
  std::vector<Value> out;
  auto want = [&](ValueKind k) { return !kind || *kind == k; };
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: {
      const std::int64_t i = sqlite3_value_int64(v);
      if (want(ValueKind::Integer)) out.push_back(Value::integer(i));
      if (want(ValueKind::Float)) {
        const auto d = static_cast<double>(i);
        std::int64_t back = 0;
        if (exact_int(d, &back) && back == i) out.push_back(Value::floating(d));
      }
      if (want(ValueKind::Boolean) && (i == 0 || i == 1)) out.push_back(Value::boolean(i == 1));
      if (want(ValueKind::Ref)) out.push_back(Value::ref(i));
      break;
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(v);
      if (std::isnan(d)) break;
      std::int64_t i = 0;
      if (want(ValueKind::Float)) out.push_back(Value::floating(d));
      if (exact_int(d, &i)) {
        if (want(ValueKind::Integer)) out.push_back(Value::integer(i));
        if (want(ValueKind::Boolean) && (i == 0 || i == 1)) out.push_back(Value::boolean(i == 1));
        if (want(ValueKind::Ref)) out.push_back(Value::ref(i));
      }
      break;
    }
    case SQLITE_TEXT: {
      const std::string_view text = text_of(v);
      if (want(ValueKind::String)) out.push_back(Value::string(std::string(text)));
      if (want(ValueKind::Keyword) && is_keyword_text(text)) {
        out.push_back(Value::keyword(std::string(text)));
      }
      if (want(ValueKind::Ref)) {
        if (auto name = ident_from_text(text)) {
          std::optional<EntityId> id;
          if (lookup(*name, &id).ok() && id) out.push_back(Value::ref(*id));
        }
      }
      if (want(ValueKind::Instant)) {
        TimeParse t = parse_instant(text);
        if (t.ms) out.push_back(Value::instant(*t.ms));
      }
      if (want(ValueKind::Uuid)) {
        if (auto u = parse_uuid(text)) out.push_back(Value::uuid(*u));
      }
      break;
    }
    case SQLITE_BLOB:
      if (want(ValueKind::Bytes)) {
        const auto* p = static_cast<const char*>(sqlite3_value_blob(v));
        out.push_back(Value::bytes(std::string(p ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(v)))));
      }
      break;
    default:
      break;  // NULL equals nothing
  }
  return out;
}

}  // namespace datalog::ext
