// engine/schema.h: optional per-attribute schema (beyond Minigraf; README "Schema").
//
// Schema is ordinary facts on an attribute's entity — the entity its keyword names, the same id
// datoms use as their attribute:
//   [:person/email :db/unique :db.unique/identity]     ; or :db.unique/value
//   [:person/email :db/valueType :db.type/string]
//   [:person/age :db/cardinality :db.cardinality/one]  ; the default is many (Minigraf)
// An attribute without schema facts behaves exactly as in Minigraf. The three schema
// attributes are themselves cardinality one, keyword-valued, and accept only the keywords
// listed below. Schema facts count whatever their valid time (schema is not bi-temporal).
//
// Schema holds the schema of one graph as read at one moment; SchemaWriter
// (engine/schema_writer.h) enforces it and keeps it current as schema facts are written.
// Thread safety: a plain value type.
#pragma once

#include <optional>
#include <string_view>
#include <unordered_map>

#include "engine/status.h"
#include "engine/storage.h"
#include "engine/value.h"

namespace datalog {

enum class Cardinality { Many, One };
enum class Uniqueness { None, Identity, Value };
enum class ValueType { String, Long, Double, Boolean, Instant, Ref, Uuid, Keyword, Bytes };

struct AttributeSchema {
  Cardinality cardinality = Cardinality::Many;
  Uniqueness unique = Uniqueness::None;
  std::optional<ValueType> type;
};

// Which schema attribute an attribute keyword is, if any.
enum class SchemaAttribute { None, Cardinality, Unique, ValueType };
SchemaAttribute schema_attribute_of(const Value& attribute_ident);

// The keyword a schema value is written as (":db.type/string", ":db.cardinality/one", ...).
std::string_view value_type_keyword(ValueType t);
// Whether v may be stored in an attribute of type t (type-exact; a ref may be written as a
// #ref, or as the keyword or #uuid that names the entity).
bool value_has_type(const Value& v, ValueType t);

// Parses the value of a schema fact; the error names the attribute and lists what is accepted.
Status parse_schema_value(SchemaAttribute which, const Value& attribute_ident, const Value& v,
                          AttributeSchema* into);

class Schema {
 public:
  // Reads every schema fact of graph. Cheap when the graph has none: three ident look-ups.
  static Status load(GraphReader& graph, Schema* out);

  // The schema of attribute a, or null when it has none.
  const AttributeSchema* find(EntityId a) const {
    const auto it = attributes_.find(a);
    return it == attributes_.end() ? nullptr : &it->second;
  }
  // Re-reads the schema facts of attribute a (after one of them was written).
  Status reload(GraphReader& graph, EntityId a);

 private:
  Status read_attribute(GraphReader& graph, SchemaAttribute which, EntityId schema_attribute,
                        std::optional<EntityId> only);

  std::unordered_map<EntityId, AttributeSchema> attributes_;
};

}  // namespace datalog
