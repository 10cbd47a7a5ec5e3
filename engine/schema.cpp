#include "engine/schema.h"

#include <fmt/format.h>

#include <array>

namespace datalog {

namespace {

struct Named {
  std::string_view keyword;
  ValueType type;
};
constexpr std::array<Named, 9> kValueTypes{{
    {":db.type/string", ValueType::String},
    {":db.type/long", ValueType::Long},
    {":db.type/double", ValueType::Double},
    {":db.type/boolean", ValueType::Boolean},
    {":db.type/instant", ValueType::Instant},
    {":db.type/ref", ValueType::Ref},
    {":db.type/uuid", ValueType::Uuid},
    {":db.type/keyword", ValueType::Keyword},
    {":db.type/bytes", ValueType::Bytes},
}};

constexpr std::array<std::pair<SchemaAttribute, std::string_view>, 3> kSchemaAttributes{{
    {SchemaAttribute::Cardinality, ":db/cardinality"},
    {SchemaAttribute::Unique, ":db/unique"},
    {SchemaAttribute::ValueType, ":db/valueType"},
}};

Status invalid(const Value& attribute_ident, std::string_view schema_name, const Value& v,
               std::string_view expected) {
  return Status(StatusCode::InvalidArgument,
                fmt::format("Invalid schema value {} for {} of {}: expected {}", v.to_edn(),
                            schema_name, attribute_ident.to_edn(), expected));
}

}  // namespace

SchemaAttribute schema_attribute_of(const Value& attribute_ident) {
  if (!attribute_ident.is(ValueKind::Keyword)) return SchemaAttribute::None;
  const std::string& text = attribute_ident.as_keyword();
  if (text.size() < 4 || text.compare(0, 4, ":db/") != 0) return SchemaAttribute::None;
  for (const auto& [which, name] : kSchemaAttributes) {
    if (text == name) return which;
  }
  return SchemaAttribute::None;
}

std::string_view value_type_keyword(ValueType t) {
  for (const Named& n : kValueTypes) {
    if (n.type == t) return n.keyword;
  }
  return ":db.type/unknown";
}

bool value_has_type(const Value& v, ValueType t) {
  switch (t) {
    case ValueType::String:
      return v.is(ValueKind::String);
    case ValueType::Long:
      return v.is(ValueKind::Integer);
    case ValueType::Double:
      return v.is(ValueKind::Float);
    case ValueType::Boolean:
      return v.is(ValueKind::Boolean);
    case ValueType::Instant:
      return v.is(ValueKind::Instant);
    case ValueType::Ref:
      return v.is(ValueKind::Ref) || v.is(ValueKind::Keyword) || v.is(ValueKind::Uuid);
    case ValueType::Uuid:
      return v.is(ValueKind::Uuid);
    case ValueType::Keyword:
      return v.is(ValueKind::Keyword);
    case ValueType::Bytes:
      return v.is(ValueKind::Bytes);
  }
  return false;
}

Status parse_schema_value(SchemaAttribute which, const Value& attribute_ident, const Value& v,
                          AttributeSchema* into) {
  const std::string empty;
  const std::string& text = v.is(ValueKind::Keyword) ? v.as_keyword() : empty;
  switch (which) {
    case SchemaAttribute::Cardinality:
      if (text == ":db.cardinality/one") {
        into->cardinality = Cardinality::One;
      } else if (text == ":db.cardinality/many") {
        into->cardinality = Cardinality::Many;
      } else {
        return invalid(attribute_ident, ":db/cardinality", v,
                       ":db.cardinality/one or :db.cardinality/many");
      }
      return Status::OK();
    case SchemaAttribute::Unique:
      if (text == ":db.unique/identity") {
        into->unique = Uniqueness::Identity;
      } else if (text == ":db.unique/value") {
        into->unique = Uniqueness::Value;
      } else {
        return invalid(attribute_ident, ":db/unique", v, ":db.unique/identity or :db.unique/value");
      }
      return Status::OK();
    case SchemaAttribute::ValueType:
      for (const Named& n : kValueTypes) {
        if (text == n.keyword) {
          into->type = n.type;
          return Status::OK();
        }
      }
      return invalid(attribute_ident, ":db/valueType", v,
                     ":db.type/string, :db.type/long, :db.type/double, :db.type/boolean, "
                     ":db.type/instant, :db.type/ref, :db.type/uuid, :db.type/keyword or "
                     ":db.type/bytes");
    case SchemaAttribute::None:
      break;
  }
  return Status(StatusCode::Internal, "not a schema attribute");
}

Status Schema::load(GraphReader& graph, Schema* out) {
  out->attributes_.clear();
  for (const auto& [which, name] : kSchemaAttributes) {
    std::optional<EntityId> id;
    DATALOG_RETURN_IF_ERROR(graph.entity_of(Value::keyword(std::string(name)), &id));
    if (id) DATALOG_RETURN_IF_ERROR(out->read_attribute(graph, which, *id, std::nullopt));
  }
  return Status::OK();
}

Status Schema::reload(GraphReader& graph, EntityId a) {
  attributes_.erase(a);
  for (const auto& [which, name] : kSchemaAttributes) {
    std::optional<EntityId> id;
    DATALOG_RETURN_IF_ERROR(graph.entity_of(Value::keyword(std::string(name)), &id));
    if (id) DATALOG_RETURN_IF_ERROR(read_attribute(graph, which, *id, a));
  }
  return Status::OK();
}

// Schema values stored before this feature existed may be anything: those that do not parse
// are ignored rather than making the graph unwritable.
Status Schema::read_attribute(GraphReader& graph, SchemaAttribute which, EntityId schema_attribute,
                              std::optional<EntityId> only) {
  DatomFilter filter;
  filter.a = schema_attribute;
  filter.e = only;
  TimeView view;
  view.any_valid_time = true;
  return graph.scan(filter, view, [&](const Datom& d) {
    AttributeSchema parsed = attributes_.count(d.e) ? attributes_[d.e] : AttributeSchema{};
    if (parse_schema_value(which, Value::nil(), d.v, &parsed).ok()) attributes_[d.e] = parsed;
    return true;
  });
}

}  // namespace datalog
