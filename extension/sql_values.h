// extension/sql_values.h: how Datalog values, entities and times look in SQL, both ways.
//
// The mapping (README "Values in SQL"), chosen so that no two values share a (v, vtype) pair:
//   kind      v in SQL                                    vtype
//   string    TEXT                                        'string'
//   integer   INTEGER                                     'integer'
//   float     REAL                                        'float'
//   boolean   INTEGER 0 / 1                               'boolean'
//   keyword   TEXT ':name'                                'keyword'
//   ref       the entity: its ident TEXT, else INTEGER id 'ref'
//   instant   TEXT 'YYYY-MM-DDTHH:MM:SS.sssZ'             'instant'
//   uuid      TEXT canonical lowercase                    'uuid'
//   bytes     BLOB                                        'bytes'
//   nil       NULL                                        'nil'
// Without a vtype, an inserted SQL value takes the kind of its storage class (INTEGER ->
// integer, REAL -> float, TEXT -> string, BLOB -> bytes, NULL -> nil).
// Entities: an entity with an ident shows as the ident (':alice', or a uuid's text), else as
// its integer id; on input either form is accepted.
// The mapping is implemented in three parts: sql_text.cpp (whole text values, identifiers, kind
// names, ident text), values_from_sql.cpp (SQL to values and entities) and values_to_sql.cpp
// (values and entities to results and bound parameters).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/value.h"
#include "extension/sqlite_api.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext {

// Finds (or, when writing, creates) the entity an ident names; nullopt when it has none.
using IdentResolver = std::function<store::Status(const Value& name, std::optional<EntityId>*)>;
// Finds the ident of an entity; nullopt when it has none.
using IdentNamer = std::function<store::Status(EntityId id, std::optional<Value>*)>;

// The whole text of an SQL value, NUL bytes included (valid until the value changes).
std::string_view text_of(sqlite3_value* v);

// An SQL identifier in double quotes, embedded quotes doubled.
std::string quote_identifier(const std::string& name);

std::optional<ValueKind> kind_from_name(std::string_view name);
std::string kind_names_list();  // "string, integer, ..." for messages

// An ident written as SQL text: ':keyword' or a uuid. nullopt for anything else.
std::optional<Value> ident_from_text(std::string_view text);
bool is_keyword_text(std::string_view text);

struct Converted {
  std::optional<Value> value;
  std::string error;  // set when value is empty
};

// The entity an SQL value names (INTEGER id, or ident text resolved through resolve).
store::Status entity_from_sql(sqlite3_value* v, const IdentResolver& resolve,
                              std::optional<EntityId>* out, std::string* error);
// The value an INSERT stores from (v, vtype).
Converted value_from_sql(sqlite3_value* v, sqlite3_value* vtype, const IdentResolver& resolve);
// An instant given as ISO text or integer milliseconds; what names the column in errors.
Converted instant_from_sql(sqlite3_value* v, std::string_view what);

// Every stored value whose SQL form could equal v (SQLite compares numbers numerically, so 5
// may be integer 5, float 5.0, boolean, or the ref to entity 5); narrowed to kind when given.
std::vector<Value> equal_candidates(sqlite3_value* v, std::optional<ValueKind> kind,
                                    const IdentResolver& lookup);

// The SQL form of a value or entity (the mapping above). text views the value's own storage,
// `name` (an entity's ident) or `owned`, so a SqlForm is filled in place and not copied.
struct SqlForm {
  enum Type { Null, Integer, Real, Text, Blob } type = Null;
  std::int64_t integer = 0;
  double real = 0;
  std::string_view text;  // Text and Blob
  std::optional<Value> name;
  std::string owned;

  SqlForm() = default;
  SqlForm(const SqlForm&) = delete;
  SqlForm& operator=(const SqlForm&) = delete;
};
// Fails only when an entity's name cannot be read (a damaged index): an entity is never shown by
// its number in place of a name it has.
store::Status sql_form_of(const Value& v, const IdentNamer& name_of, SqlForm* out);
store::Status sql_form_of_entity(EntityId id, const IdentNamer& name_of, SqlForm* out);
// The same for an entity whose name (null: none) is known; out->text may point into name.
void sql_form_of_named_entity(EntityId id, const Value* name, SqlForm* out);

// Binds v to a statement parameter in its SQL form; returns SQLite's code, or *failure (when
// given) is set from a name that could not be read and its code returned.
int bind_value(sqlite3_stmt* stmt, int index, const Value& v, const IdentNamer& name_of,
               store::Status* failure = nullptr);

// Output helpers. Ref values and entities print their ident when they have one; a name that
// cannot be read makes the result an error.
void result_entity(sqlite3_context* ctx, EntityId id, const IdentNamer& name_of);
// name_is_shared: name lives in the graph's shared name table (lmdb_store/name_table.h).
void result_named_entity(sqlite3_context* ctx, EntityId id, const Value* name, bool name_is_shared);
void result_value(sqlite3_context* ctx, const Value& v, const IdentNamer& name_of);
void result_instant(sqlite3_context* ctx, std::int64_t ms);

}  // namespace datalog::ext
