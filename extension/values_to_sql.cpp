// Datalog values and entities in their SQL form: results, bound parameters.
#include "extension/sql_values.h"

#include "engine/time_text.h"
#include "engine/uuid_text.h"
#include "extension/errors.h"
#include "extension/terminated_text.h"

namespace datalog::ext {

void sql_form_of_named_entity(EntityId id, const Value* name, SqlForm* out) {
  if (name && name->is(ValueKind::Keyword)) {
    out->type = SqlForm::Text;
    out->text = name->as_keyword();
    return;
  }
  if (name && name->is(ValueKind::Uuid)) {
    out->type = SqlForm::Text;
    out->owned = format_uuid(name->as_uuid());
    out->text = out->owned;
    return;
  }
  out->type = SqlForm::Integer;
  out->integer = id;
}

store::Status sql_form_of_entity(EntityId id, const IdentNamer& name_of, SqlForm* out) {
  std::optional<Value>& name = out->name;
  DATALOG_RETURN_IF_ERROR(name_of(id, &name));
  sql_form_of_named_entity(id, name ? &*name : nullptr, out);
  return store::Status::OK();
}

store::Status sql_form_of(const Value& v, const IdentNamer& name_of, SqlForm* out) {
  switch (v.kind()) {
    case ValueKind::String:
      out->type = SqlForm::Text;
      out->text = v.as_string();
      return store::Status::OK();
    case ValueKind::Integer:
      out->type = SqlForm::Integer;
      out->integer = v.as_integer();
      return store::Status::OK();
    case ValueKind::Float:
      out->type = SqlForm::Real;
      out->real = v.as_float();
      return store::Status::OK();
    case ValueKind::Boolean:
      out->type = SqlForm::Integer;
      out->integer = v.as_boolean() ? 1 : 0;
      return store::Status::OK();
    case ValueKind::Keyword:
      out->type = SqlForm::Text;
      out->text = v.as_keyword();
      return store::Status::OK();
    case ValueKind::Ref: return sql_form_of_entity(v.as_ref(), name_of, out);
    case ValueKind::Instant:
      out->type = SqlForm::Text;
      out->owned = format_instant(v.as_instant());
      out->text = out->owned;
      return store::Status::OK();
    case ValueKind::Uuid:
      out->type = SqlForm::Text;
      out->owned = format_uuid(v.as_uuid());
      out->text = out->owned;
      return store::Status::OK();
    case ValueKind::Bytes:
      out->type = SqlForm::Blob;
      out->text = v.as_bytes();
      return store::Status::OK();
    case ValueKind::Nil: out->type = SqlForm::Null; return store::Status::OK();
  }
  return store::Status::OK();
}

namespace {

void result_form(sqlite3_context* ctx, const SqlForm& f) {
  const int size = static_cast<int>(f.text.size());
  switch (f.type) {
    case SqlForm::Null: sqlite3_result_null(ctx); return;
    case SqlForm::Integer: sqlite3_result_int64(ctx, f.integer); return;
    case SqlForm::Real: sqlite3_result_double(ctx, f.real); return;
    case SqlForm::Text: result_terminated_text(ctx, f.text, SQLITE_TRANSIENT); return;
    case SqlForm::Blob: sqlite3_result_blob(ctx, f.text.data(), size, SQLITE_TRANSIENT); return;
  }
}

// The statement fails with status's code and message.
void result_failure(sqlite3_context* ctx, const store::Status& status) {
  const std::string message = "datalog: " + status.message();
  sqlite3_result_error(ctx, message.data(), static_cast<int>(message.size()));
  sqlite3_result_error_code(ctx, sqlite_code(status));
}

}  // namespace

void result_named_entity(sqlite3_context* ctx, EntityId id, const Value* name, bool name_is_shared) {
  if (name_is_shared && name && name->is(ValueKind::Keyword)) {
    // The text stays where it is while the graph is open, which outlasts every statement
    // reading this table: SQLite may point at it instead of copying it.
    result_terminated_text(ctx, name->as_keyword(), SQLITE_STATIC);
    return;
  }
  SqlForm f;
  sql_form_of_named_entity(id, name, &f);
  result_form(ctx, f);
}

void result_entity(sqlite3_context* ctx, EntityId id, const IdentNamer& name_of) {
  SqlForm f;
  const store::Status st = sql_form_of_entity(id, name_of, &f);
  if (!st.ok()) return result_failure(ctx, st);
  result_form(ctx, f);
}

void result_instant(sqlite3_context* ctx, std::int64_t ms) {
  result_terminated_text(ctx, format_instant(ms), SQLITE_TRANSIENT);
}

void result_value(sqlite3_context* ctx, const Value& v, const IdentNamer& name_of) {
  SqlForm f;
  const store::Status st = sql_form_of(v, name_of, &f);
  if (!st.ok()) return result_failure(ctx, st);
  result_form(ctx, f);
}

int bind_value(sqlite3_stmt* stmt, int index, const Value& v, const IdentNamer& name_of,
               store::Status* failure) {
  SqlForm f;
  const store::Status st = sql_form_of(v, name_of, &f);
  if (!st.ok()) {
    if (failure) *failure = st;
    return sqlite_code(st);
  }
  const int size = static_cast<int>(f.text.size());
  switch (f.type) {
    case SqlForm::Null: return sqlite3_bind_null(stmt, index);
    case SqlForm::Integer: return sqlite3_bind_int64(stmt, index, f.integer);
    case SqlForm::Real: return sqlite3_bind_double(stmt, index, f.real);
    case SqlForm::Text: return bind_terminated_text(stmt, index, f.text, SQLITE_TRANSIENT);
    case SqlForm::Blob: return sqlite3_bind_blob(stmt, index, f.text.data(), size, SQLITE_TRANSIENT);
  }
  return SQLITE_MISUSE;
}

}  // namespace datalog::ext
