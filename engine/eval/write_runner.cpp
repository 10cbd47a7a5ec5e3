#include "engine/eval/write_runner.h"

#include <fmt/format.h>

namespace datalog::eval {

namespace {

std::string at(const ast::SourcePos& pos) {
  return fmt::format("line {}, column {}", pos.line, pos.column);
}

Status entity_of_fact(GraphWriter& graph, const ast::Fact& f, EntityId* out) {
  switch (f.e.kind()) {
    case ValueKind::Integer: *out = f.e.as_integer(); return Status::OK();
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

}  // namespace

Status run_transact(GraphWriter& graph, const ast::Transact& t, std::size_t* datoms) {
  *datoms = 0;
  for (const ast::Fact& f : t.facts) {
    EntityId e = 0, a = 0;
    DATALOG_RETURN_IF_ERROR(entity_of_fact(graph, f, &e));
    DATALOG_RETURN_IF_ERROR(attribute_of_fact(graph, f, &a));
    const std::int64_t from = f.valid_from ? *f.valid_from : t.valid_from ? *t.valid_from : graph.tx_time_ms();
    const std::int64_t to = f.valid_to ? *f.valid_to : t.valid_to ? *t.valid_to : kForever;
    DATALOG_RETURN_IF_ERROR(graph.assert_fact(e, a, f.v, from, to));
    ++*datoms;
  }
  return Status::OK();
}

Status run_retract(GraphWriter& graph, const ast::Retract& r, std::size_t* datoms) {
  *datoms = 0;
  for (const ast::Fact& f : r.facts) {
    EntityId e = 0, a = 0;
    DATALOG_RETURN_IF_ERROR(entity_of_fact(graph, f, &e));
    DATALOG_RETURN_IF_ERROR(attribute_of_fact(graph, f, &a));
    DATALOG_RETURN_IF_ERROR(graph.retract_fact(e, a, f.v));
    ++*datoms;
  }
  return Status::OK();
}

}  // namespace datalog::eval
