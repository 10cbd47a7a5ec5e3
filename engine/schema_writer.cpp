#include "engine/schema_writer.h"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace datalog {

namespace {

bool overlaps(std::int64_t from1, std::int64_t to1, std::int64_t from2, std::int64_t to2) {
  return from1 < to2 && from2 < to1;
}

TimeView every_valid_time() {
  TimeView view;
  view.any_valid_time = true;
  return view;
}

std::string typed(const Value& v) {
  return fmt::format("{} ({})", v.to_edn(), kind_name(v.kind()));
}

}  // namespace

std::string SchemaWriter::entity_text(EntityId id) {
  std::optional<Value> ident;
  if (graph_.ident_of(id, &ident).ok() && ident) return ident->to_edn();
  return std::to_string(id);
}

Status SchemaWriter::assert_fact(EntityId e, EntityId a, const Value& a_ident, const Value& v,
                                 std::int64_t valid_from, std::int64_t valid_to) {
  const SchemaAttribute which = schema_attribute_of(a_ident);
  AttributeSchema rules;  // what applies to a
  if (which != SchemaAttribute::None) {
    rules.cardinality = Cardinality::One;
    AttributeSchema declared = schema_.find(e) ? *schema_.find(e) : AttributeSchema{};
    const std::string attribute = entity_text(e);
    DATALOG_RETURN_IF_ERROR(parse_schema_value(which, Value::keyword(attribute), v, &declared));
    DATALOG_RETURN_IF_ERROR(check_schema_change(which, e, Value::keyword(attribute), declared));
  } else if (const AttributeSchema* found = schema_.find(a)) {
    rules = *found;
  }
  if (rules.type && !value_has_type(v, *rules.type)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("Wrong type for attribute {}: expected {}, got {}", a_ident.to_edn(),
                              value_type_keyword(*rules.type), typed(v)));
  }
  bool present = false;
  if (rules.unique != Uniqueness::None) {
    DATALOG_RETURN_IF_ERROR(check_unique(e, a, a_ident, v, valid_from, valid_to, &present));
  }
  if (rules.cardinality == Cardinality::One) {
    DATALOG_RETURN_IF_ERROR(replace_others(e, a, v, valid_from, valid_to, &present));
  }
  if (!present) DATALOG_RETURN_IF_ERROR(graph_.assert_fact(e, a, v, valid_from, valid_to));
  if (which != SchemaAttribute::None) DATALOG_RETURN_IF_ERROR(schema_.reload(graph_, e));
  return Status::OK();
}

Status SchemaWriter::identity_holder(EntityId a, const Value& v, std::int64_t valid_from,
                                     std::int64_t valid_to, bool* identity,
                                     std::optional<EntityId>* holder) {
  holder->reset();
  const AttributeSchema* found = schema_.find(a);
  *identity = found && found->unique == Uniqueness::Identity;
  if (!*identity) return Status::OK();
  DatomFilter filter;
  filter.a = a;
  filter.v = v;
  return graph_.scan(filter, every_valid_time(), [&](const Datom& d) {
    if (!overlaps(d.valid_from, d.valid_to, valid_from, valid_to)) return true;
    *holder = d.e;
    return false;
  });
}

Status SchemaWriter::check_unique(EntityId e, EntityId a, const Value& a_ident, const Value& v,
                                  std::int64_t from, std::int64_t to, bool* present) {
  DatomFilter filter;
  filter.a = a;
  filter.v = v;
  std::optional<EntityId> holder;
  DATALOG_RETURN_IF_ERROR(graph_.scan(filter, every_valid_time(), [&](const Datom& d) {
    if (!overlaps(d.valid_from, d.valid_to, from, to)) return true;
    if (d.e == e) {
      *present = true;
      return true;
    }
    holder = d.e;
    return false;
  }));
  if (!holder) return Status::OK();
  return Status(StatusCode::InvalidArgument,
                fmt::format("Unique conflict: {} value {} is already held by {} (asserted for {})",
                            a_ident.to_edn(), v.to_edn(), entity_text(*holder), entity_text(e)));
}

Status SchemaWriter::check_schema_change(SchemaAttribute which, EntityId attribute,
                                         const Value& attribute_ident,
                                         const AttributeSchema& declared) {
  DatomFilter filter;
  filter.a = attribute;
  if (which == SchemaAttribute::ValueType) {
    std::optional<Datom> misfit;
    DATALOG_RETURN_IF_ERROR(graph_.scan(filter, every_valid_time(), [&](const Datom& d) {
      if (value_has_type(d.v, *declared.type)) return true;
      misfit = d;
      return false;
    }));
    if (!misfit) return Status::OK();
    return Status(StatusCode::InvalidArgument,
                  fmt::format("Cannot set :db/valueType {} on {}: {} already holds {}",
                              value_type_keyword(*declared.type), attribute_ident.as_keyword(),
                              entity_text(misfit->e), typed(misfit->v)));
  }
  if (which != SchemaAttribute::Unique) return Status::OK();
  struct Holding {
    EntityId e;
    std::int64_t from, to;
  };
  std::map<Value, std::vector<Holding>> holders;
  std::optional<std::pair<Value, std::pair<EntityId, EntityId>>> clash;
  DATALOG_RETURN_IF_ERROR(graph_.scan(filter, every_valid_time(), [&](const Datom& d) {
    std::vector<Holding>& seen = holders[d.v];
    for (const Holding& h : seen) {
      if (h.e != d.e && overlaps(h.from, h.to, d.valid_from, d.valid_to)) {
        clash.emplace(d.v, std::make_pair(h.e, d.e));
        return false;
      }
    }
    seen.push_back(Holding{d.e, d.valid_from, d.valid_to});
    return true;
  }));
  if (!clash) return Status::OK();
  return Status(StatusCode::InvalidArgument,
                fmt::format("Cannot make {} unique: value {} is held by both {} and {}",
                            attribute_ident.as_keyword(), clash->first.to_edn(),
                            entity_text(clash->second.first), entity_text(clash->second.second)));
}

Status SchemaWriter::replace_others(EntityId e, EntityId a, const Value& v, std::int64_t from,
                                    std::int64_t to, bool* present) {
  *present = false;
  DatomFilter filter;
  filter.e = e;
  filter.a = a;
  std::vector<Value> others;
  DATALOG_RETURN_IF_ERROR(graph_.scan(filter, every_valid_time(), [&](const Datom& d) {
    if (!overlaps(d.valid_from, d.valid_to, from, to)) return true;
    if (d.v == v) {
      *present = true;
    } else if (others.empty() || others.back() != d.v) {  // a value's windows come together
      others.push_back(d.v);
    }
    return true;
  }));
  for (const Value& old : others) DATALOG_RETURN_IF_ERROR(graph_.retract_fact(e, a, old));
  return Status::OK();
}

}  // namespace datalog
