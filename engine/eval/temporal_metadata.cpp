#include "engine/eval/temporal_metadata.h"

#include <fmt/format.h>

namespace datalog::eval {

namespace {

constexpr const char* kValidFrom = ":db/valid-from";
constexpr const char* kValidTo = ":db/valid-to";
constexpr const char* kTxCount = ":db/tx-count";
constexpr const char* kTxId = ":db/tx-id";
constexpr const char* kValidAt = ":db/valid-at";

const std::string* attribute_of(const ast::Pattern& p) {
  const auto* a = std::get_if<Value>(&p.a);
  return a && a->is(ValueKind::Keyword) ? &a->as_keyword() : nullptr;
}

}  // namespace

bool is_pseudo_pattern(const ast::Pattern& p) {
  const std::string* a = attribute_of(p);
  return a && (*a == kValidFrom || *a == kValidTo || *a == kTxCount || *a == kTxId || *a == kValidAt);
}

unsigned meta_needed(const ast::Pattern& p) {
  const std::string* a = attribute_of(p);
  if (!a) return 0;
  if (*a == kValidFrom) return kNeedValidFrom;
  if (*a == kValidTo) return kNeedValidTo;
  if (*a == kTxCount || *a == kTxId) return kNeedTx;
  return 0;
}

std::string entity_key(const ast::Term& e) {
  if (const auto* v = std::get_if<ast::Variable>(&e)) return v->name;
  if (const auto* c = std::get_if<Value>(&e)) return c->to_edn();
  return "$" + std::get<ast::Slot>(e).name;
}

Status apply_pseudo_pattern(EvalContext& ctx, const ast::Pattern& p, Relation& rel) {
  const std::string& attr = *attribute_of(p);
  const bool any = ctx.view().any_valid_time;
  if (attr != kValidAt && !any) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("temporal pseudo-attributes (:db/valid-from, :db/valid-to, "
                              ":db/tx-count, :db/tx-id) require :any-valid-time; add "
                              ":any-valid-time to your query (found {})",
                              attr));
  }
  // Where the value goes: a new variable, a bound one to compare, or a constant to compare.
  const auto* out_var = std::get_if<ast::Variable>(&p.v);
  const bool binds = out_var && !out_var->is_wildcard() && !rel.binds(out_var->name);
  const int compare_col = out_var && !binds && !out_var->is_wildcard() ? rel.column(out_var->name) : -1;
  const Value* constant = std::get_if<Value>(&p.v);
  Relation out;
  out.vars = rel.vars;
  if (binds) out.vars.push_back(out_var->name);
  auto emit = [&](RowView row, Value v) {
    if (constant && !(v == *constant)) return;
    if (compare_col >= 0 && !(row[static_cast<std::size_t>(compare_col)] == v)) return;
    std::span<Value> added = out.rows.push_back_widened(row, out.vars.size());
    if (binds) added.back() = std::move(v);
  };
  // The value of attr for a fact with this metadata; for the three integers, the metadata itself.
  auto value_of = [&](std::uint64_t tx, std::int64_t vf, std::int64_t vt, Value* v) -> Status {
    if (attr == kValidFrom) *v = Value::integer(vf);
    else if (attr == kValidTo) *v = Value::integer(vt);
    else if (attr == kTxCount) *v = Value::integer(static_cast<std::int64_t>(tx));
    else {
      std::int64_t ms = 0;
      DATALOG_RETURN_IF_ERROR(ctx.graph().tx_time(tx, &ms));
      *v = Value::integer(ms);
    }
    return Status::OK();
  };

  // Reading metadata of the row's own fact, or the valid-at instant, gives each row at most one
  // row: room for all of them at once (a relation of 100K rows grew by doubling, copying and
  // faulting in tens of megabytes).
  if (attr == kValidAt) {
    out.rows.reserve(rel.rows.size(), out.vars.size());
    for (RowView row : rel.rows) emit(row, any ? Value::nil() : Value::integer(ctx.view().valid_at));
    rel = std::move(out);
    return Status::OK();
  }
  const std::string key = entity_key(p.e);
  // Correlated with the last real pattern on this entity, which carried the column read here.
  const std::string meta = attr == kValidFrom ? MetaColumns::valid_from(key)
                           : attr == kValidTo   ? MetaColumns::valid_to(key)
                                                : MetaColumns::tx(key);
  if (const int meta_col = rel.column(meta); meta_col >= 0) {
    out.rows.reserve(rel.rows.size(), out.vars.size());
    const auto col = static_cast<std::size_t>(meta_col);
    for (RowView row : rel.rows) {
      if (attr != kTxId) {
        emit(row, row[col]);
        continue;
      }
      Value v;
      DATALOG_RETURN_IF_ERROR(value_of(static_cast<std::uint64_t>(row[col].as_integer()), 0, 0, &v));
      emit(row, std::move(v));
    }
    rel = std::move(out);
    return Status::OK();
  }
  // On its own: every visible fact of the entity.
  const int e_col = std::holds_alternative<ast::Variable>(p.e) ? rel.column(entity_key(p.e)) : -1;
  for (RowView row : rel.rows) {
    std::optional<EntityId> id;
    if (const auto* c = std::get_if<Value>(&p.e)) {
      DATALOG_RETURN_IF_ERROR(ctx.as_entity(*c, &id));
    } else if (e_col >= 0) {
      DATALOG_RETURN_IF_ERROR(ctx.as_entity(row[static_cast<std::size_t>(e_col)], &id));
    }
    if (!id) continue;
    DatomFilter f;
    f.e = id;
    std::vector<Datom> facts;
    DATALOG_RETURN_IF_ERROR(ctx.graph().scan(f, ctx.view(), [&](const Datom& d) {
      facts.push_back(d);
      return true;
    }));
    for (const Datom& d : facts) {
      Value v;
      DATALOG_RETURN_IF_ERROR(value_of(d.tx, d.valid_from, d.valid_to, &v));
      emit(row, std::move(v));
    }
  }
  rel = std::move(out);
  return Status::OK();
}

}  // namespace datalog::eval
