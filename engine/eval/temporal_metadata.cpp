#include "engine/eval/temporal_metadata.h"

#include <string_view>

#include <fmt/format.h>

namespace datalog::eval {

namespace {

// Views, not C strings: a comparison with one checks the length first instead of calling strlen,
// and every pattern of every query is checked against all of them.
constexpr std::string_view kValidFrom = ":db/valid-from";
constexpr std::string_view kValidTo = ":db/valid-to";
constexpr std::string_view kTxCount = ":db/tx-count";
constexpr std::string_view kTxId = ":db/tx-id";
constexpr std::string_view kValidAt = ":db/valid-at";

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

namespace {

// A pseudo pattern applied to a relation: each row of it gives rows with the pattern's value.
class PseudoPatternJoin {
 public:
  PseudoPatternJoin(EvalContext& ctx, const ast::Pattern& p, const std::string& attr, const Relation& rel)
      : ctx_(ctx), p_(p), attr_(attr), constant_(std::get_if<Value>(&p.v)) {
    // Where the value goes: a new variable, a bound one to compare, or a constant to compare.
    const auto* out_var = std::get_if<ast::Variable>(&p.v);
    binds_ = out_var && !out_var->is_wildcard() && !rel.binds(out_var->name);
    compare_col_ = out_var && !binds_ && !out_var->is_wildcard() ? rel.column(out_var->name) : -1;
    out_.vars = rel.vars;
    if (binds_) out_.vars.push_back(out_var->name);
  }

  Relation take() { return std::move(out_); }

  // :db/valid-at: the query's valid time, or nil under :any-valid-time.
  void add_valid_at(const Relation& rel) {
    reserve_row_each(rel);
    const Value at = ctx_.view().any_valid_time ? Value::nil() : Value::integer(ctx_.view().valid_at);
    for (RowView row : rel.rows) emit(row, at);
  }

  // Correlated with the last real pattern on this entity, which carried the column read here.
  Status add_from_meta_column(const Relation& rel, std::size_t col) {
    reserve_row_each(rel);
    for (RowView row : rel.rows) {
      if (attr_ != kTxId) {
        emit(row, row[col]);
        continue;
      }
      Value v;
      DATALOG_RETURN_IF_ERROR(value_of(static_cast<std::uint64_t>(row[col].as_integer()), 0, 0, &v));
      emit(row, std::move(v));
    }
    return Status::OK();
  }

  // On its own: every visible fact of the entity.
  Status add_from_entity_facts(const Relation& rel) {
    const int e_col = std::holds_alternative<ast::Variable>(p_.e) ? rel.column(entity_key(p_.e)) : -1;
    for (RowView row : rel.rows) {
      std::optional<EntityId> id;
      if (const auto* c = std::get_if<Value>(&p_.e)) {
        DATALOG_RETURN_IF_ERROR(ctx_.as_entity(*c, &id));
      } else if (e_col >= 0) {
        DATALOG_RETURN_IF_ERROR(ctx_.as_entity(row[static_cast<std::size_t>(e_col)], &id));
      }
      if (!id) continue;
      DatomFilter f;
      f.e = id;
      std::vector<Datom> facts;
      DATALOG_RETURN_IF_ERROR(ctx_.graph().scan(f, ctx_.view(), [&](const Datom& d) {
        facts.push_back(d);
        return true;
      }));
      for (const Datom& d : facts) {
        Value v;
        DATALOG_RETURN_IF_ERROR(value_of(d.tx, d.valid_from, d.valid_to, &v));
        emit(row, std::move(v));
      }
    }
    return Status::OK();
  }

 private:
  // Reading metadata of the row's own fact, or the valid-at instant, gives each row at most one
  // row: room for all of them at once (a relation of 100K rows grew by doubling, copying and
  // faulting in tens of megabytes).
  void reserve_row_each(const Relation& rel) { out_.rows.reserve(rel.rows.size(), out_.vars.size()); }

  void emit(RowView row, Value v) {
    if (constant_ && !(v == *constant_)) return;
    if (compare_col_ >= 0 && !(row[static_cast<std::size_t>(compare_col_)] == v)) return;
    std::span<Value> added = out_.rows.push_back_widened(row, out_.vars.size());
    if (binds_) added.back() = std::move(v);
  }

  // The value of attr for a fact with this metadata; for the three integers, the metadata itself.
  Status value_of(std::uint64_t tx, std::int64_t vf, std::int64_t vt, Value* v) {
    if (attr_ == kValidFrom) *v = Value::integer(vf);
    else if (attr_ == kValidTo) *v = Value::integer(vt);
    else if (attr_ == kTxCount) *v = Value::integer(static_cast<std::int64_t>(tx));
    else {
      std::int64_t ms = 0;
      DATALOG_RETURN_IF_ERROR(ctx_.graph().tx_time(tx, &ms));
      *v = Value::integer(ms);
    }
    return Status::OK();
  }

  EvalContext& ctx_;
  const ast::Pattern& p_;
  const std::string& attr_;
  const Value* constant_;
  bool binds_ = false;
  int compare_col_ = -1;
  Relation out_;
};

// The hidden column that carries attr (not :db/valid-at) for the entity key.
std::string meta_column(const std::string& attr, const std::string& key) {
  return attr == kValidFrom ? MetaColumns::valid_from(key)
         : attr == kValidTo ? MetaColumns::valid_to(key)
                            : MetaColumns::tx(key);
}

}  // namespace

Status apply_pseudo_pattern(EvalContext& ctx, const ast::Pattern& p, Relation& rel) {
  const std::string& attr = *attribute_of(p);
  if (attr != kValidAt && !ctx.view().any_valid_time) {
    return Status(StatusCode::InvalidArgument,
                  fmt::format("temporal pseudo-attributes (:db/valid-from, :db/valid-to, "
                              ":db/tx-count, :db/tx-id) require :any-valid-time; add "
                              ":any-valid-time to your query (found {})",
                              attr));
  }
  PseudoPatternJoin join(ctx, p, attr, rel);
  if (attr == kValidAt) {
    join.add_valid_at(rel);
  } else if (const int col = rel.column(meta_column(attr, entity_key(p.e))); col >= 0) {
    DATALOG_RETURN_IF_ERROR(join.add_from_meta_column(rel, static_cast<std::size_t>(col)));
  } else {
    DATALOG_RETURN_IF_ERROR(join.add_from_entity_facts(rel));
  }
  rel = join.take();
  return Status::OK();
}

}  // namespace datalog::eval
