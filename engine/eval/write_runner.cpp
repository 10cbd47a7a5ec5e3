#include "engine/eval/write_runner.h"

#include <map>
#include <random>

#include <fmt/format.h>

#include "engine/schema_writer.h"

namespace datalog::eval {

namespace {

std::string at(const ast::SourcePos& pos) {
  return fmt::format("line {}, column {}", pos.line, pos.column);
}

Status entity_of_fact(GraphWriter& graph, const ast::Fact& f, EntityId* out) {
  switch (f.e.kind()) {
    case ValueKind::Integer:
      if (!is_application_entity_id(f.e.as_integer())) {
        return Status(StatusCode::InvalidArgument,
                      fmt::format("Invalid entity {} at {}: integer entity ids must be below {} (2^52); "
                                  "larger ids belong to idents",
                                  f.e.to_edn(), at(f.pos), kFirstIdentEntityId));
      }
      *out = f.e.as_integer();
      return Status::OK();
    case ValueKind::Ref: *out = f.e.as_ref(); return Status::OK();
    case ValueKind::Keyword:
    case ValueKind::Uuid: return graph.resolve_ident(f.e, out);
    default:
      return Status(StatusCode::InvalidArgument,
                    fmt::format("Invalid entity {} at {}: an entity is a keyword, a #uuid or an integer id",
                                f.e.to_edn(), at(f.pos)));
  }
}

Status attribute_of_fact(GraphWriter& graph, const ast::Fact& f, EntityId* out) {
  if (!f.a.is(ValueKind::Keyword)) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("attribute must be a keyword, got {} at {}", f.a.to_edn(), at(f.pos)));
  }
  return graph.resolve_ident(f.a, out);
}

// The attribute of a command's facts, looked up once per run of facts that share it (most
// commands' facts do): an ident's entity never changes, and each lookup hashes the name.
class AttributeMemo {
 public:
  Status resolve(GraphWriter& graph, const ast::Fact& f, EntityId* out) {
    if (known_ && f.a == last_) {
      *out = id_;
      return Status::OK();
    }
    DATALOG_RETURN_IF_ERROR(attribute_of_fact(graph, f, out));
    last_ = f.a;
    id_ = *out;
    known_ = true;
    return Status::OK();
  }

 private:
  bool known_ = false;
  Value last_;
  EntityId id_ = 0;
};

// A fresh entity for an entity map that names none and finds none by upsert: a new random
// (version 4) #uuid ident, like the entity ids Minigraf gives.
Status new_entity(GraphWriter& graph, EntityId* out) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  Uuid u;
  for (std::size_t k = 0; k < u.bytes.size(); k += 8) {
    const std::uint64_t bits = generator();
    for (std::size_t b = 0; b < 8; ++b) u.bytes[k + b] = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  u.bytes[6] = static_cast<std::uint8_t>((u.bytes[6] & 0x0F) | 0x40);
  u.bytes[8] = static_cast<std::uint8_t>((u.bytes[8] & 0x3F) | 0x80);
  return graph.resolve_ident(Value::uuid(u), out);
}

struct Window {
  std::int64_t from, to;
};

Window window_of(const GraphWriter& graph, const ast::Transact& t, const ast::Fact& f) {
  return Window{f.valid_from ? *f.valid_from : t.valid_from ? *t.valid_from : graph.tx_time_ms(),
                f.valid_to ? *f.valid_to : t.valid_to ? *t.valid_to : kForever};
}

// The entity of entity map `index` without :db/id: the one its identity attributes' values
// find (all of them must find the same one), else a new one.
Status upsert_entity(GraphWriter& graph, SchemaWriter& writer, const ast::Transact& t, int index,
                     EntityId* out) {
  std::optional<EntityId> found;
  const ast::Fact* found_by = nullptr;
  for (const ast::Fact& f : t.facts) {
    if (f.entity_map != index) continue;
    std::optional<EntityId> a;
    DATALOG_RETURN_IF_ERROR(graph.entity_of(f.a, &a));
    if (!a) continue;  // a new attribute has no schema
    const Window w = window_of(graph, t, f);
    bool identity = false;
    std::optional<EntityId> holder;
    DATALOG_RETURN_IF_ERROR(writer.identity_holder(*a, f.v, w.from, w.to, &identity, &holder));
    if (!holder) continue;
    if (found && *found != *holder) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("Upsert conflict: {} {} finds {} but {} {} finds {} at {}",
                                found_by->a.to_edn(), found_by->v.to_edn(), writer.entity_text(*found),
                                f.a.to_edn(), f.v.to_edn(), writer.entity_text(*holder), at(f.pos)));
    }
    found = holder;
    found_by = &f;
  }
  if (found) {
    *out = *found;
    return Status::OK();
  }
  return new_entity(graph, out);
}

Status poll(const std::function<bool()>& interrupted, std::size_t done) {
  if (done % kFactsPerPoll != 0 || !interrupted || !interrupted()) return Status::OK();
  return Status(StatusCode::Interrupted, "interrupted");
}

Status positioned(const Status& st, const ast::SourcePos& pos) {
  if (st.ok() || st.code() != StatusCode::InvalidArgument) return st;
  return Status(st.code(), fmt::format("{} at {}", st.message(), at(pos)));
}

}  // namespace

Status run_transact(GraphWriter& graph, const ast::Transact& t, std::size_t* datoms,
                    const std::function<bool()>& interrupted) {
  *datoms = 0;
  Schema schema;
  DATALOG_RETURN_IF_ERROR(Schema::load(graph, &schema));
  SchemaWriter writer(graph, schema);
  std::map<int, EntityId> map_entities;  // entity maps without :db/id, once resolved
  AttributeMemo attributes;
  for (const ast::Fact& f : t.facts) {
    DATALOG_RETURN_IF_ERROR(poll(interrupted, *datoms));
    EntityId e = 0, a = 0;
    if (f.entity_map >= 0 && f.e.is(ValueKind::Nil)) {
      auto it = map_entities.find(f.entity_map);
      if (it == map_entities.end()) {
        DATALOG_RETURN_IF_ERROR(upsert_entity(graph, writer, t, f.entity_map, &e));
        it = map_entities.emplace(f.entity_map, e).first;
      }
      e = it->second;
    } else {
      DATALOG_RETURN_IF_ERROR(entity_of_fact(graph, f, &e));
    }
    DATALOG_RETURN_IF_ERROR(attributes.resolve(graph, f, &a));
    const Window w = window_of(graph, t, f);
    DATALOG_RETURN_IF_ERROR(positioned(writer.assert_fact(e, a, f.a, f.v, w.from, w.to), f.pos));
    ++*datoms;
  }
  return Status::OK();
}

Status run_retract(GraphWriter& graph, const ast::Retract& r, std::size_t* datoms,
                   std::size_t* not_asserted, const std::function<bool()>& interrupted) {
  *datoms = 0;
  *not_asserted = 0;
  AttributeMemo attributes;
  for (const ast::Fact& f : r.facts) {
    DATALOG_RETURN_IF_ERROR(poll(interrupted, *datoms + *not_asserted));
    EntityId e = 0, a = 0;
    DATALOG_RETURN_IF_ERROR(entity_of_fact(graph, f, &e));
    DATALOG_RETURN_IF_ERROR(attributes.resolve(graph, f, &a));
    bool stored = false;
    DATALOG_RETURN_IF_ERROR(graph.retract_fact(e, a, f.v, &stored));
    ++*(stored ? datoms : not_asserted);
  }
  return Status::OK();
}

}  // namespace datalog::eval
