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

// One pattern joined to one relation: the roles of e, a and v, the output's columns (with the
// metadata columns a pseudo pattern reads later), and the two ways of joining.
class PatternJoin {
 public:
  PatternJoin(EvalContext& ctx, const ast::Pattern& p, int order, const std::vector<ValueRange>& v_ranges)
      : ctx_(ctx), pattern_(p), order_(order), v_ranges_(v_ranges) {}

  // Sets out's columns and the terms' roles; *can_match false when a constant names nothing.
  Status prepare(const Relation& rel, const std::map<std::string, unsigned>& pseudo_entities, bool* can_match);
  // One scan with the constants, hashed on the bound positions (join_planner.h decides).
  Status hash_join(const Relation& rel);
  // Index lookups per row, memoized while bound values repeat.
  Status lookup_join(const Relation& rel);

  Relation out;

 private:
  void add_metadata_columns(const std::string& key, unsigned needs);
  Status value_alternatives(const Value& v, std::vector<Value>& alts);
  Status extend(RowView row, const Match& m);
  Status collect(const DatomFilter& given);
  Status collect_matching(DatomFilter& f, const Value* wanted);
  // The bound positions of row as a key (*possible false when e or a names nothing): v by its
  // join key; e and a as written, and set in *f, for lookups; as the entities they name, for
  // the hash join (f null), whose index holds entities.
  Status bind_row(RowView row, DatomFilter* f, Row* key, bool* possible);

  EvalContext& ctx_;
  const ast::Pattern& pattern_;
  const int order_;
  const std::vector<ValueRange>& v_ranges_;
  TermRole slots_[3];
  std::optional<EntityId> const_e_, const_a_;
  // Carry the match's metadata when a pseudo pattern later reads it (temporal_metadata.h).
  int meta_vf_ = -1, meta_vt_ = -1, meta_tx_ = -1, meta_order_ = -1;
  Matches matches_;
  std::vector<Value> alts_;
};

void PatternJoin::add_metadata_columns(const std::string& key, unsigned needs) {
  auto column = [&](const std::string& name) {
    int c = out.column(name);
    if (c < 0) {
      out.vars.push_back(name);
      c = static_cast<int>(out.vars.size()) - 1;
    }
    return c;
  };
  if (needs & kNeedValidFrom) meta_vf_ = column(MetaColumns::valid_from(key));
  if (needs & kNeedValidTo) meta_vt_ = column(MetaColumns::valid_to(key));
  if (needs & kNeedTx) meta_tx_ = column(MetaColumns::tx(key));
  meta_order_ = column(MetaColumns::order(key));
}

Status PatternJoin::prepare(const Relation& rel, const std::map<std::string, unsigned>& pseudo_entities,
                            bool* can_match) {
  *can_match = false;
  out.vars = rel.vars;
  if (!pseudo_entities.empty()) {  // a body with temporal pseudo patterns: rare
    if (const auto needs = pseudo_entities.find(entity_key(pattern_.e));
        needs != pseudo_entities.end()) {
      add_metadata_columns(needs->first, needs->second);
    }
  }
  const ast::Term* terms[3] = {&pattern_.e, &pattern_.a, &pattern_.v};
  for (int i = 0; i < 3; ++i) {
    const ast::Term& t = *terms[i];
    if (const auto* c = std::get_if<Value>(&t)) {
      slots_[i].kind = TermRole::Kind::Constant;
      slots_[i].constant = *c;
    } else if (const auto* v = named_variable(t)) {
      const int col = rel.column(v->name);
      if (col >= 0) {
        slots_[i] = TermRole{TermRole::Kind::Bound, col, {}};
      } else if (const int o = out.column(v->name); o >= 0) {
        slots_[i] = TermRole{TermRole::Kind::Repeat, o, {}};
      } else {
        out.vars.push_back(v->name);
        slots_[i] = TermRole{TermRole::Kind::Free, static_cast<int>(out.vars.size()) - 1, {}};
      }
    } else if (std::holds_alternative<ast::Slot>(t)) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("missing bind value for slot '${}'", std::get<ast::Slot>(t).name));
    }
  }
  // Constants resolved once.
  if (slots_[0].kind == TermRole::Kind::Constant) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(slots_[0].constant, &const_e_));
    if (!const_e_) return Status::OK();
  }
  if (slots_[1].kind == TermRole::Kind::Constant) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_attribute(slots_[1].constant, &const_a_));
    if (!const_a_) return Status::OK();
  }
  *can_match = true;
  return Status::OK();
}

// Values that match v (a keyword or uuid ident and the entity it names are interchangeable).
Status PatternJoin::value_alternatives(const Value& v, std::vector<Value>& alts) {
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
}

// Appends row extended with a match to out, unless a repeated variable disagrees.
Status PatternJoin::extend(RowView row, const Match& m) {
  DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());  // one outer row may produce millions
  std::span<Value> next = out.rows.push_back_widened(row, out.vars.size());
  if (meta_order_ >= 0) {
    Value& last = next[static_cast<std::size_t>(meta_order_)];
    if (last.is(ValueKind::Nil) || last.as_integer() < order_) {  // the textually last one wins
      last = Value::integer(order_);
      if (meta_vf_ >= 0) next[static_cast<std::size_t>(meta_vf_)] = Value::integer(m.valid_from);
      if (meta_vt_ >= 0) next[static_cast<std::size_t>(meta_vt_)] = Value::integer(m.valid_to);
      if (meta_tx_ >= 0) next[static_cast<std::size_t>(meta_tx_)] = Value::integer(static_cast<std::int64_t>(m.tx));
    }
  }
  for (int i = 0; i < 3; ++i) {
    if (slots_[i].kind != TermRole::Kind::Free && slots_[i].kind != TermRole::Kind::Repeat) continue;
    Value& cell = next[static_cast<std::size_t>(slots_[i].column)];
    Value v;
    Value& target = slots_[i].kind == TermRole::Kind::Free ? cell : v;
    if (i == 0) target = Value::ref(m.e);
    else if (i == 1) DATALOG_RETURN_IF_ERROR(ctx_.attribute_keyword(m.a, &target));
    else target = m.v;
    if (slots_[i].kind == TermRole::Kind::Repeat && !(ctx_.join_key(cell) == ctx_.join_key(v))) {
      out.rows.pop_back();  // a repeated variable that does not unify
      return Status::OK();
    }
  }
  return Status::OK();
}

// The datoms of one scan onto matches_.
Status PatternJoin::collect(const DatomFilter& given) {
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
    matches_.push_back(Match{d.e, d.a, d.v, d.tx, d.valid_from, d.valid_to});
    return true;
  });
}

// collect() for f with v `wanted` (null: any v), once per value that stands for it.
Status PatternJoin::collect_matching(DatomFilter& f, const Value* wanted) {
  if (!wanted) return collect(f);
  DATALOG_RETURN_IF_ERROR(value_alternatives(*wanted, alts_));
  for (const Value& alt : alts_) {
    f.v = alt;
    DATALOG_RETURN_IF_ERROR(collect(f));
  }
  return Status::OK();
}

Status PatternJoin::bind_row(RowView row, DatomFilter* f, Row* key, bool* possible) {
  *possible = true;
  for (int i = 0; i < 3; ++i) {
    if (slots_[i].kind != TermRole::Kind::Bound) continue;
    const Value& bound = row[static_cast<std::size_t>(slots_[i].column)];
    if (i == 2) {
      key->push_back(ctx_.join_key(bound));
      continue;
    }
    std::optional<EntityId> id;
    DATALOG_RETURN_IF_ERROR(i == 0 ? ctx_.as_entity(bound, &id) : ctx_.as_attribute(bound, &id));
    if (!id) {
      *possible = false;
      return Status::OK();
    }
    if (f) {
      (i == 0 ? f->e : f->a) = *id;
      key->push_back(bound);
    } else {
      key->push_back(Value::ref(*id));
    }
  }
  return Status::OK();
}

Status PatternJoin::hash_join(const Relation& rel) {
  DatomFilter f;
  f.e = const_e_;
  f.a = const_a_;
  if (slots_[2].kind == TermRole::Kind::Free) f.v_ranges = v_ranges_;
  if (slots_[2].kind == TermRole::Kind::Constant) f.v = slots_[2].constant;
  // Room for the scan's matches up front (bounded: the estimate may be far off).
  matches_.reserve(static_cast<std::size_t>(std::clamp(ctx_.graph().estimate(f), 0.0, 65536.0)));
  const std::optional<Value> wanted = f.v;
  DATALOG_RETURN_IF_ERROR(collect_matching(f, wanted ? &*wanted : nullptr));
  std::size_t width = 0;
  for (const TermRole& s : slots_) width += s.kind == TermRole::Kind::Bound ? 1 : 0;
  KeyIndex index(width);  // entry m is matches_[m]
  Row key;  // reused: building and probing allocate only the index's own buffers
  for (const Match& m : matches_) {
    key.clear();
    if (slots_[0].kind == TermRole::Kind::Bound) key.push_back(Value::ref(m.e));
    if (slots_[1].kind == TermRole::Kind::Bound) key.push_back(Value::ref(m.a));
    if (slots_[2].kind == TermRole::Kind::Bound) key.push_back(ctx_.join_key(m.v));
    index.add(key);
  }
  index.build();
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key.clear();
    bool possible = true;
    DATALOG_RETURN_IF_ERROR(bind_row(row, nullptr, &key, &possible));
    if (!possible) continue;
    for (std::uint32_t m = index.find(key); m != KeyIndex::kNone; m = index.next(m)) {
      DATALOG_RETURN_IF_ERROR(extend(row, matches_[m]));
    }
  }
  return Status::OK();
}

// Index lookups, once per distinct binding of the bound positions: the memo pays when bound
// values repeat (a join on a department). When they do not (one lookup per entity), it only
// costs a key, a match list and a node per row, so it is dropped after kMemoTrial lookups
// that found fewer than one repeat in kMemoMinRepeat.
Status PatternJoin::lookup_join(const Relation& rel) {
  constexpr std::size_t kMemoTrial = 256, kMemoMinRepeat = 8;
  std::unordered_map<Row, Matches, RowHash> memo;
  bool memoize = true;
  std::size_t lookups = 0, repeats = 0;
  Row key;  // reused for lookups; moved into the memo only on a miss
  DatomFilter f;
  if (slots_[2].kind == TermRole::Kind::Free) f.v_ranges = v_ranges_;
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key.clear();
    f.e = const_e_;
    f.a = const_a_;
    f.v.reset();
    bool possible = true;
    DATALOG_RETURN_IF_ERROR(bind_row(row, &f, &key, &possible));
    if (!possible) continue;
    const Matches* found = nullptr;
    if (memoize) {
      if (auto it = memo.find(key); it != memo.end()) {
        found = &it->second;
        ++repeats;
      }
    }
    if (!found) {
      matches_.clear();
      const Value* wanted = nullptr;
      if (slots_[2].kind == TermRole::Kind::Constant) wanted = &slots_[2].constant;
      if (slots_[2].kind == TermRole::Kind::Bound) wanted = &row[static_cast<std::size_t>(slots_[2].column)];
      if (rel.rows.size() == 1) {  // one scan makes the whole output: room for it at once
        f.v = wanted ? std::optional<Value>(*wanted) : std::nullopt;
        const double expected = std::min(ctx_.graph().estimate(f), kMaxReservedRows);
        if (expected >= kReserveFrom) {
          matches_.reserve(static_cast<std::size_t>(expected));
          out.rows.reserve(static_cast<std::size_t>(expected), out.vars.size());
        }
      }
      DATALOG_RETURN_IF_ERROR(collect_matching(f, wanted));
      if (memoize && ++lookups == kMemoTrial && repeats * kMemoMinRepeat < lookups) {
        memoize = false;
        memo.clear();
      }
      if (memoize) {
        found = &memo.emplace(key, std::move(matches_)).first->second;
        matches_ = {};
      } else {
        found = &matches_;  // kept for the next row: its buffer is reused
      }
    }
    for (const Match& m : *found) {
      DATALOG_RETURN_IF_ERROR(extend(row, m));
    }
  }
  return Status::OK();
}

}  // namespace

Status BodyEvaluator::apply_pattern(const ast::Pattern& p, Relation& rel, bool hash_join,
                                    int order, const std::vector<ValueRange>& v_ranges) {
  PatternJoin join(ctx_, p, order, v_ranges);
  bool can_match = false;
  DATALOG_RETURN_IF_ERROR(join.prepare(rel, pseudo_entities_, &can_match));
  if (can_match) DATALOG_RETURN_IF_ERROR(hash_join ? join.hash_join(rel) : join.lookup_join(rel));
  rel = std::move(join.out);
  return Status::OK();
}

}  // namespace datalog::eval
