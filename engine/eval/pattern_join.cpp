// engine/eval/pattern_join.cpp: a pattern [e a v] joined to the relation: index lookups per row,
// or one scan hashed on the shared variables (join_planner.h chooses); matches carry the
// metadata that temporal pseudo-patterns read later (temporal_metadata.h).
#include "engine/eval/body_evaluator.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/eval/key_index.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/eval/term_role.h"
#include "engine/large_buffer_allocator.h"

namespace datalog::eval {

using ast::named_variable;

namespace {

// A scan expected to match at least kReserveFrom rows sizes the output's first chunk for them
// up front, at most kMaxReservedRows (the estimate may be far off).
constexpr double kReserveFrom = 1024.0;
constexpr double kMaxReservedRows = 1 << 20;

struct Match {
  EntityId e;
  EntityId a;
  Value v;
  std::uint64_t tx;
  std::int64_t valid_from, valid_to;
};
// A scan's matches can run to tens of megabytes: allocated as relation cells are.
using Matches = std::vector<Match, LargeBufferAllocator<Match>>;

}  // namespace

Status BodyEvaluator::apply_pattern(const ast::Pattern& p, Relation& rel, bool hash_join,
                                    int order, const std::vector<ValueRange>& v_ranges) {
  // Classify e, a, v.
  Relation out;
  out.vars = rel.vars;
  // Carry the match's metadata when a pseudo pattern later reads it (temporal_metadata.h).
  int meta_vf = -1, meta_vt = -1, meta_tx = -1, meta_order = -1;
  if (const auto needs = pseudo_entities_.find(entity_key(p.e)); needs != pseudo_entities_.end()) {
    const std::string& key = needs->first;
    auto column = [&](const std::string& name) {
      int c = out.column(name);
      if (c < 0) {
        out.vars.push_back(name);
        c = static_cast<int>(out.vars.size()) - 1;
      }
      return c;
    };
    if (needs->second & kNeedValidFrom) meta_vf = column(MetaColumns::valid_from(key));
    if (needs->second & kNeedValidTo) meta_vt = column(MetaColumns::valid_to(key));
    if (needs->second & kNeedTx) meta_tx = column(MetaColumns::tx(key));
    meta_order = column(MetaColumns::order(key));
  }
  TermRole slots[3];
  const ast::Term* terms[3] = {&p.e, &p.a, &p.v};
  for (int i = 0; i < 3; ++i) {
    const ast::Term& t = *terms[i];
    if (const auto* c = std::get_if<Value>(&t)) {
      slots[i].kind = TermRole::Kind::Constant;
      slots[i].constant = *c;
    } else if (const auto* v = named_variable(t)) {
      const int col = rel.column(v->name);
      if (col >= 0) {
        slots[i] = TermRole{TermRole::Kind::Bound, col, {}};
      } else if (const int o = out.column(v->name); o >= 0) {
        slots[i] = TermRole{TermRole::Kind::Repeat, o, {}};
      } else {
        out.vars.push_back(v->name);
        slots[i] = TermRole{TermRole::Kind::Free, static_cast<int>(out.vars.size()) - 1, {}};
      }
    } else if (std::holds_alternative<ast::Slot>(t)) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("missing bind value for slot '${}'", std::get<ast::Slot>(t).name));
    }
  }
  // Constants resolved once.
  std::optional<EntityId> const_e, const_a;
  if (slots[0].kind == TermRole::Kind::Constant) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(slots[0].constant, &const_e));
    if (!const_e) {
      rel = std::move(out);
      rel.rows.clear();
      return Status::OK();
    }
  }
  if (slots[1].kind == TermRole::Kind::Constant) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_attribute(slots[1].constant, &const_a));
    if (!const_a) {
      rel = std::move(out);
      rel.rows.clear();
      return Status::OK();
    }
  }

  // Values that match v (a keyword or uuid ident and the entity it names are interchangeable).
  auto value_alternatives = [&](const Value& v, std::vector<Value>& alts) -> Status {
    alts.clear();
    alts.push_back(v);
    if (v.is(ValueKind::Keyword) || v.is(ValueKind::Uuid)) {
      std::optional<EntityId> id;
      DATALOG_RETURN_IF_ERROR(ctx_.as_entity(v, &id));
      if (id) alts.push_back(Value::ref(*id));
    } else if (v.is(ValueKind::Ref)) {
      std::optional<Value> name;
      DATALOG_RETURN_IF_ERROR(ctx_.keyword_of(v.as_ref(), &name));
      if (name) alts.push_back(*name);
    }
    return Status::OK();
  };

  // Appends row extended with a match to out, unless a repeated variable disagrees.
  auto extend = [&](RowView row, const Match& m) -> Status {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());  // one outer row may produce millions
    std::span<Value> next = out.rows.push_back_widened(row, out.vars.size());
    if (meta_order >= 0) {
      Value& last = next[static_cast<std::size_t>(meta_order)];
      if (last.is(ValueKind::Nil) || last.as_integer() < order) {  // the textually last one wins
        last = Value::integer(order);
        if (meta_vf >= 0) next[static_cast<std::size_t>(meta_vf)] = Value::integer(m.valid_from);
        if (meta_vt >= 0) next[static_cast<std::size_t>(meta_vt)] = Value::integer(m.valid_to);
        if (meta_tx >= 0) next[static_cast<std::size_t>(meta_tx)] = Value::integer(static_cast<std::int64_t>(m.tx));
      }
    }
    for (int i = 0; i < 3; ++i) {
      if (slots[i].kind != TermRole::Kind::Free && slots[i].kind != TermRole::Kind::Repeat) continue;
      Value& cell = next[static_cast<std::size_t>(slots[i].column)];
      Value v;
      Value& target = slots[i].kind == TermRole::Kind::Free ? cell : v;
      if (i == 0) target = Value::ref(m.e);
      else if (i == 1) DATALOG_RETURN_IF_ERROR(ctx_.attribute_keyword(m.a, &target));
      else target = m.v;
      if (slots[i].kind == TermRole::Kind::Repeat && !(ctx_.join_key(cell) == ctx_.join_key(v))) {
        out.rows.pop_back();  // a repeated variable that does not unify
        return Status::OK();
      }
    }
    return Status::OK();
  };

  Matches matches;
  auto collect = [&](const DatomFilter& given) -> Status {
    // Float constants match within f64::EPSILON (§3): scan without the value, then compare.
    const DatomFilter* f = &given;
    DatomFilter without_value;
    std::optional<double> near;
    if (given.v && given.v->is(ValueKind::Float)) {
      near = given.v->as_float();
      without_value = given;
      without_value.v.reset();
      f = &without_value;
    }
    return ctx_.graph().scan(*f, ctx_.view(), [&](const Datom& d) {
      if (near && !(d.v.is(ValueKind::Float) &&
                    std::fabs(d.v.as_float() - *near) <= std::numeric_limits<double>::epsilon())) {
        return true;
      }
      matches.push_back(Match{d.e, d.a, d.v, d.tx, d.valid_from, d.valid_to});
      return true;
    });
  };

  if (hash_join) {
    // One scan with the constants, hashed on the bound positions.
    DatomFilter f;
    f.e = const_e;
    f.a = const_a;
    if (slots[2].kind == TermRole::Kind::Free) f.v_ranges = v_ranges;
    if (slots[2].kind == TermRole::Kind::Constant) f.v = slots[2].constant;
    // Room for the scan's matches up front (bounded: the estimate may be far off).
    matches.reserve(static_cast<std::size_t>(std::clamp(ctx_.graph().estimate(f), 0.0, 65536.0)));
    std::vector<Value> alts;
    if (f.v) {
      DATALOG_RETURN_IF_ERROR(value_alternatives(*f.v, alts));
      for (const Value& alt : alts) {
        f.v = alt;
        DATALOG_RETURN_IF_ERROR(collect(f));
      }
    } else {
      DATALOG_RETURN_IF_ERROR(collect(f));
    }
    std::size_t width = 0;
    for (const TermRole& s : slots) width += s.kind == TermRole::Kind::Bound ? 1 : 0;
    KeyIndex index(width);  // entry m is matches[m]
    Row key;  // reused: building and probing allocate only the index's own buffers
    for (const Match& m : matches) {
      key.clear();
      if (slots[0].kind == TermRole::Kind::Bound) key.push_back(Value::ref(m.e));
      if (slots[1].kind == TermRole::Kind::Bound) key.push_back(Value::ref(m.a));
      if (slots[2].kind == TermRole::Kind::Bound) key.push_back(ctx_.join_key(m.v));
      index.add(key);
    }
    index.build();
    for (RowView row : rel.rows) {
      DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
      key.clear();
      bool possible = true;
      for (int i = 0; i < 3 && possible; ++i) {
        if (slots[i].kind != TermRole::Kind::Bound) continue;
        const Value& bound = row[static_cast<std::size_t>(slots[i].column)];
        if (i == 2) {
          key.push_back(ctx_.join_key(bound));
          continue;
        }
        std::optional<EntityId> id;
        DATALOG_RETURN_IF_ERROR(i == 0 ? ctx_.as_entity(bound, &id) : ctx_.as_attribute(bound, &id));
        if (!id) possible = false;
        else key.push_back(Value::ref(*id));
      }
      if (!possible) continue;
      for (std::uint32_t m = index.find(key); m != KeyIndex::kNone; m = index.next(m)) {
        DATALOG_RETURN_IF_ERROR(extend(row, matches[m]));
      }
    }
    rel = std::move(out);
    return Status::OK();
  }

  // Index lookups, once per distinct binding of the bound positions: the memo pays when bound
  // values repeat (a join on a department). When they do not (one lookup per entity), it only
  // costs a key, a match list and a node per row, so it is dropped after kMemoTrial lookups
  // that found fewer than one repeat in kMemoMinRepeat.
  constexpr std::size_t kMemoTrial = 256, kMemoMinRepeat = 8;
  std::unordered_map<Row, Matches, RowHash> memo;
  bool memoize = true;
  std::size_t lookups = 0, repeats = 0;
  std::vector<Value> alts;
  Row key;  // reused for lookups; moved into the memo only on a miss
  DatomFilter f;
  if (slots[2].kind == TermRole::Kind::Free) f.v_ranges = v_ranges;
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key.clear();
    f.e = const_e;
    f.a = const_a;
    f.v.reset();
    bool possible = true;
    for (int i = 0; i < 3 && possible; ++i) {
      if (slots[i].kind != TermRole::Kind::Bound) continue;
      const Value& bound = row[static_cast<std::size_t>(slots[i].column)];
      key.push_back(i == 2 ? ctx_.join_key(bound) : bound);
      if (i == 2) continue;
      std::optional<EntityId> id;
      DATALOG_RETURN_IF_ERROR(i == 0 ? ctx_.as_entity(bound, &id) : ctx_.as_attribute(bound, &id));
      if (!id) possible = false;
      else (i == 0 ? f.e : f.a) = *id;
    }
    if (!possible) continue;
    const Matches* found = nullptr;
    if (memoize) {
      if (auto it = memo.find(key); it != memo.end()) {
        found = &it->second;
        ++repeats;
      }
    }
    if (!found) {
      matches.clear();
      const Value* wanted = nullptr;
      if (slots[2].kind == TermRole::Kind::Constant) wanted = &slots[2].constant;
      if (slots[2].kind == TermRole::Kind::Bound) wanted = &row[static_cast<std::size_t>(slots[2].column)];
      if (rel.rows.size() == 1) {  // one scan makes the whole output: room for it at once
        f.v = wanted ? std::optional<Value>(*wanted) : std::nullopt;
        const double expected = std::min(ctx_.graph().estimate(f), kMaxReservedRows);
        if (expected >= kReserveFrom) {
          matches.reserve(static_cast<std::size_t>(expected));
          out.rows.reserve(static_cast<std::size_t>(expected), out.vars.size());
        }
      }
      if (wanted) {
        DATALOG_RETURN_IF_ERROR(value_alternatives(*wanted, alts));
        for (const Value& alt : alts) {
          f.v = alt;
          DATALOG_RETURN_IF_ERROR(collect(f));
        }
      } else {
        DATALOG_RETURN_IF_ERROR(collect(f));
      }
      if (memoize && ++lookups == kMemoTrial && repeats * kMemoMinRepeat < lookups) {
        memoize = false;
        memo.clear();
      }
      if (memoize) {
        found = &memo.emplace(key, std::move(matches)).first->second;
        matches = {};
      } else {
        found = &matches;  // kept for the next row: its buffer is reused
      }
    }
    for (const Match& m : *found) {
      DATALOG_RETURN_IF_ERROR(extend(row, m));
    }
  }
  rel = std::move(out);
  return Status::OK();
}

}  // namespace datalog::eval
