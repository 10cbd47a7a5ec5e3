#include "engine/eval/body_evaluator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/ast_text.h"
#include "engine/ast_walk.h"
#include "engine/eval/closure.h"
#include "engine/eval/expression_eval.h"
#include "engine/eval/distinct_rows.h"
#include "engine/eval/join_planner.h"
#include "engine/eval/key_index.h"
#include "engine/large_buffer_allocator.h"
#include "engine/eval/value_ranges.h"
#include "engine/eval/temporal_metadata.h"
#include "engine/value_hash.h"

namespace datalog::eval {

using ast::named_variable;

namespace {

// A scan expected to match at least kReserveFrom rows reserves room for them up front, at most
// kMaxReservedRows (the estimate may be far off): a relation of 100K rows grown by doubling
// copied and faulted in twice the memory it ended with.
constexpr double kReserveFrom = 1024.0;
constexpr double kMaxReservedRows = 1 << 20;


void add_unique(std::vector<std::string>& out, const std::string& name) {
  if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
}

void term_variable(const ast::Term& t, std::vector<std::string>& out) {
  if (const auto* v = named_variable(t)) add_unique(out, v->name);
}

Relation distinct_projection(const Relation& rel, const std::vector<int>& cols,
                             const std::vector<std::string>& names) {
  DistinctRows distinct(rel.rows.size());
  Row key;
  for (RowView row : rel.rows) {
    key.clear();
    for (int c : cols) key.push_back(row[static_cast<std::size_t>(c)]);
    distinct.insert_moved(key);
  }
  Relation out;
  out.vars = names;
  out.rows = distinct.take_rows();
  return out;
}

}  // namespace

std::vector<std::string> clause_variables(const ast::Clause& clause) {
  std::vector<std::string> out;
  ast::walk_clause(clause, [&](const ast::Clause& c) {
    ast::for_each_term(c, [&](const ast::Term& t) { term_variable(t, out); });
    if (const auto* e = std::get_if<ast::ExprClause>(&c.node)) {
      expr_variables(e->expr, out);
      if (e->out && !e->out->is_wildcard()) add_unique(out, e->out->name);
    }
  });
  return out;
}

std::vector<std::string> clause_binds(const ast::Clause& clause) {
  if (std::holds_alternative<ast::Not>(clause.node)) return {};
  if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) {
    if (e->out && !e->out->is_wildcard()) return {e->out->name};
    return {};
  }
  if (const auto* o = std::get_if<ast::Or>(&clause.node); o && o->is_join) {
    std::vector<std::string> out;
    for (const auto& v : o->join_vars) add_unique(out, v.name);
    return out;
  }
  return clause_variables(clause);
}

namespace {

void collect_pseudo_entities(const std::vector<ast::Clause>& clauses,
                             std::map<std::string, unsigned>& out) {
  ast::walk_clauses(clauses, [&](const ast::Clause& clause) {
    if (const auto* p = std::get_if<ast::Pattern>(&clause.node)) {
      if (const unsigned needs = meta_needed(*p)) out[entity_key(p->e)] |= needs;
    }
  });
}

}  // namespace

namespace {

// The clauses grouped into parts that share no variable (a variable of the input counts as
// shared by every clause that names it), each part in written order, parts in order of their
// first clause. The part that names an input variable comes first.
std::vector<std::vector<std::size_t>> independent_parts(const std::vector<ast::Clause>& clauses,
                                                        const Relation& input) {
  std::vector<std::size_t> parent(clauses.size());
  for (std::size_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](std::size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::unordered_map<std::string, std::size_t> first_user;
  constexpr std::size_t kInput = static_cast<std::size_t>(-1);
  std::size_t input_part = kInput;
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    std::vector<std::string> names = clause_variables(clauses[i]);
    // A temporal pseudo-pattern reads the metadata of the real pattern on the same entity, a
    // constant one too ([:a :job ?j] [:a :db/valid-from ?f]): the same part.
    if (const auto* p = std::get_if<ast::Pattern>(&clauses[i].node); p && std::holds_alternative<Value>(p->e)) {
      names.push_back("#entity " + entity_key(p->e));
    }
    for (const std::string& v : names) {
      if (input.binds(v)) {
        if (input_part == kInput) input_part = i;
        parent[root(i)] = root(input_part);
      }
      const auto [it, fresh] = first_user.emplace(v, i);
      if (!fresh) parent[root(i)] = root(it->second);
    }
  }
  std::vector<std::vector<std::size_t>> parts;
  std::unordered_map<std::size_t, std::size_t> part_of_root;
  for (std::size_t i = 0; i < clauses.size(); ++i) {
    const auto [it, fresh] = part_of_root.emplace(root(i), parts.size());
    if (fresh) parts.emplace_back();
    parts[it->second].push_back(i);
  }
  if (input_part != kInput) {
    const std::size_t first = part_of_root[root(input_part)];
    std::rotate(parts.begin(), parts.begin() + static_cast<std::ptrdiff_t>(first),
                parts.begin() + static_cast<std::ptrdiff_t>(first) + 1);
  }
  return parts;
}

}  // namespace

Status BodyEvaluator::evaluate(const std::vector<ast::Clause>& clauses, Relation input,
                               Relation* out, int depth) {
  if (depth == 0) collect_pseudo_entities(clauses, pseudo_entities_);
  if (clauses.size() < 2) return evaluate_part(clauses, {}, std::move(input), out, depth);
  const std::vector<std::vector<std::size_t>> parts = independent_parts(clauses, input);
  if (parts.size() < 2) return evaluate_part(clauses, {}, std::move(input), out, depth);
  // Parts that share no variable are evaluated alone, each with its own filters, and only their
  // results are multiplied: a cross product of the unfiltered scans could be millions of rows
  // that the filters then drop. An empty part makes the whole body empty.
  std::vector<Relation> results;
  std::vector<std::string> all_vars;
  bool empty = false;
  for (std::size_t k = 0; k < parts.size(); ++k) {
    std::vector<bool> elsewhere(clauses.size(), true);
    for (std::size_t i : parts[k]) elsewhere[i] = false;
    if (empty) {
      for (std::size_t i : parts[k]) {
        for (const std::string& v : clause_binds(clauses[i])) add_unique(all_vars, v);
      }
      continue;
    }
    Relation part;
    DATALOG_RETURN_IF_ERROR(evaluate_part(clauses, elsewhere, k == 0 ? std::move(input) : Relation::unit(),
                                          &part, depth));
    for (const std::string& v : part.vars) add_unique(all_vars, v);
    empty = part.rows.size() == 0;
    results.push_back(std::move(part));
  }
  if (empty) {
    out->vars = std::move(all_vars);
    out->rows = RowStore();
    return Status::OK();
  }
  Relation product = std::move(results.front());
  for (std::size_t k = 1; k < results.size(); ++k) {
    DATALOG_RETURN_IF_ERROR(cross_product(std::move(product), results[k], &product));
  }
  if (trace_) {
    trace_->steps.push_back(TraceStep{fmt::format("{} parts with no variable in common", parts.size()),
                                      "cross product of their results", 0, product.rows.size(), depth});
  }
  *out = std::move(product);
  return Status::OK();
}

Status BodyEvaluator::cross_product(Relation left, const Relation& right, Relation* out) {
  Relation product;
  product.vars = left.vars;
  product.vars.insert(product.vars.end(), right.vars.begin(), right.vars.end());
  Row row;
  for (RowView l : left.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    for (RowView r : right.rows) {
      DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
      row.assign(l.begin(), l.end());
      row.insert(row.end(), r.begin(), r.end());
      product.rows.push_back(std::move(row));
    }
  }
  *out = std::move(product);
  return Status::OK();
}

Status BodyEvaluator::evaluate_part(const std::vector<ast::Clause>& clauses, const std::vector<bool>& elsewhere,
                                    Relation input, Relation* out, int depth) {
  Relation rel = std::move(input);
  std::vector<std::string> in_range;
  std::vector<bool> done = elsewhere.empty() ? std::vector<bool>(clauses.size(), false) : elsewhere;
  std::size_t remaining = static_cast<std::size_t>(std::count(done.begin(), done.end(), false));
  const JoinPlanner planner(ctx_, derived_, clauses);
  while (remaining > 0) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    PlanStep best;
    DATALOG_RETURN_IF_ERROR(planner.next(rel, done, &best));
    DATALOG_RETURN_IF_ERROR(apply(clauses[best.index], rel, depth, best.estimate,
                                  best.hash_join ? "hash" : best.access,
                                  static_cast<int>(best.index), best.v_ranges, in_range));
    done[best.index] = true;
    --remaining;
  }
  *out = std::move(rel);
  return Status::OK();
}

Status BodyEvaluator::apply(const ast::Clause& clause, Relation& rel, int depth, double estimate,
                            const std::string& access, int order,
                            const std::vector<ValueRange>& v_ranges,
                            std::vector<std::string>& in_range) {
  Status st;
  std::string shown_access = access;
  if (const auto* p = std::get_if<ast::Pattern>(&clause.node); p && is_pseudo_pattern(*p)) {
    st = apply_pseudo_pattern(ctx_, *p, rel);
    shown_access = "temporal metadata";
  } else if (p) {
    // The scan holds ?v to v_ranges only where the value position binds it (not a repeat of e).
    const auto* v = named_variable(p->v);
    const auto* e = named_variable(p->e);
    const bool binds_v = v && !rel.binds(v->name) && !(e && e->name == v->name);
    st = apply_pattern(*p, rel, access == "hash", order, v_ranges);
    if (st.ok() && binds_v && !v_ranges.empty()) in_range.push_back(v->name);
    if (access == "hash") shown_access = "hash join (one scan)";
    if (!v_ranges.empty()) shown_access += ", values in range";
  } else if (const auto* e = std::get_if<ast::ExprClause>(&clause.node)) {
    st = apply_expression(*e, rel, in_range);
  } else if (const auto* n = std::get_if<ast::Not>(&clause.node)) {
    st = apply_not(*n, rel, depth);
  } else if (const auto* o = std::get_if<ast::Or>(&clause.node)) {
    st = apply_or(*o, rel, depth);
  } else if (const auto* c = std::get_if<ast::RuleCall>(&clause.node)) {
    st = apply_rule_call(*c, rel);
  }
  if (trace_) {
    std::string text = format_clause(clause);
    if (const auto* call = std::get_if<ast::RuleCall>(&clause.node)) {
      ast::RuleCall as_written = *call;  // a closure set's call shows the user's rule name
      as_written.name = rule_name_as_written(call->name);
      text = format_clause(ast::Clause{as_written});
    }
    trace_->steps.push_back(TraceStep{std::move(text), shown_access, estimate, rel.rows.size(), depth});
  }
  return st;
}

// --- patterns ---------------------------------------------------------------------------------------

namespace {

// How one position of a pattern relates to the relation.
struct Slot {
  enum class Kind { Ignore, Constant, Bound, Free, Repeat } kind = Kind::Ignore;
  int column = -1;      // Bound: input column; Free/Repeat: output column
  Value constant;
};

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
  Slot slots[3];
  const ast::Term* terms[3] = {&p.e, &p.a, &p.v};
  for (int i = 0; i < 3; ++i) {
    const ast::Term& t = *terms[i];
    if (const auto* c = std::get_if<Value>(&t)) {
      slots[i].kind = Slot::Kind::Constant;
      slots[i].constant = *c;
    } else if (const auto* v = named_variable(t)) {
      const int col = rel.column(v->name);
      if (col >= 0) {
        slots[i] = Slot{Slot::Kind::Bound, col, {}};
      } else if (const int o = out.column(v->name); o >= 0) {
        slots[i] = Slot{Slot::Kind::Repeat, o, {}};
      } else {
        out.vars.push_back(v->name);
        slots[i] = Slot{Slot::Kind::Free, static_cast<int>(out.vars.size()) - 1, {}};
      }
    } else if (std::holds_alternative<ast::Slot>(t)) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("missing bind value for slot '${}'", std::get<ast::Slot>(t).name));
    }
  }
  // Constants resolved once.
  std::optional<EntityId> const_e, const_a;
  if (slots[0].kind == Slot::Kind::Constant) {
    DATALOG_RETURN_IF_ERROR(ctx_.as_entity(slots[0].constant, &const_e));
    if (!const_e) {
      rel = std::move(out);
      rel.rows.clear();
      return Status::OK();
    }
  }
  if (slots[1].kind == Slot::Kind::Constant) {
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
      if (slots[i].kind != Slot::Kind::Free && slots[i].kind != Slot::Kind::Repeat) continue;
      Value& cell = next[static_cast<std::size_t>(slots[i].column)];
      Value v;
      Value& target = slots[i].kind == Slot::Kind::Free ? cell : v;
      if (i == 0) target = Value::ref(m.e);
      else if (i == 1) DATALOG_RETURN_IF_ERROR(ctx_.attribute_keyword(m.a, &target));
      else target = m.v;
      if (slots[i].kind == Slot::Kind::Repeat && !(ctx_.join_key(cell) == ctx_.join_key(v))) {
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
    if (slots[2].kind == Slot::Kind::Free) f.v_ranges = v_ranges;
    if (slots[2].kind == Slot::Kind::Constant) f.v = slots[2].constant;
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
    for (const Slot& s : slots) width += s.kind == Slot::Kind::Bound ? 1 : 0;
    KeyIndex index(width);  // entry m is matches[m]
    Row key;  // reused: building and probing allocate only the index's own buffers
    for (const Match& m : matches) {
      key.clear();
      if (slots[0].kind == Slot::Kind::Bound) key.push_back(Value::ref(m.e));
      if (slots[1].kind == Slot::Kind::Bound) key.push_back(Value::ref(m.a));
      if (slots[2].kind == Slot::Kind::Bound) key.push_back(ctx_.join_key(m.v));
      index.add(key);
    }
    index.build();
    for (RowView row : rel.rows) {
      DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
      key.clear();
      bool possible = true;
      for (int i = 0; i < 3 && possible; ++i) {
        if (slots[i].kind != Slot::Kind::Bound) continue;
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
  if (slots[2].kind == Slot::Kind::Free) f.v_ranges = v_ranges;
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key.clear();
    f.e = const_e;
    f.a = const_a;
    f.v.reset();
    bool possible = true;
    for (int i = 0; i < 3 && possible; ++i) {
      if (slots[i].kind != Slot::Kind::Bound) continue;
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
      if (slots[2].kind == Slot::Kind::Constant) wanted = &slots[2].constant;
      if (slots[2].kind == Slot::Kind::Bound) wanted = &row[static_cast<std::size_t>(slots[2].column)];
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

// --- expressions -----------------------------------------------------------------------------------

Status BodyEvaluator::apply_expression(const ast::ExprClause& c, Relation& rel,
                                       const std::vector<std::string>& in_range) {
  if (!c.out) {
    // A filter keeps rows in place. One that compares a variable with an integer constant need
    // not run on the integer values a scan already held to its range.
    int skip_col = -1;
    std::vector<std::string> inputs;
    expr_variables(c.expr, inputs);
    if (inputs.size() == 1 && std::find(in_range.begin(), in_range.end(), inputs[0]) != in_range.end() &&
        exact_on_integers(c, inputs[0])) {
      skip_col = rel.column(inputs[0]);
    }
    std::vector<Value> produced;
    Status st;
    rel.rows.keep_if([&](RowView row) {
      if (!st.ok()) return false;
      if (skip_col >= 0 && row[static_cast<std::size_t>(skip_col)].is(ValueKind::Integer)) return true;
      st = ctx_.check_interrupt();
      produced.clear();
      if (st.ok()) st = evaluate_clause_expression(ctx_, c, rel, row, &produced);
      return st.ok() && !produced.empty();  // one truthy marker when the row stays
    });
    return st;
  }
  Relation out;
  out.vars = rel.vars;
  int out_col = -1;
  bool out_bound = false;
  if (c.out && !c.out->is_wildcard()) {
    out_col = rel.column(c.out->name);
    out_bound = out_col >= 0;
    if (!out_bound) {
      out.vars.push_back(c.out->name);
      out_col = static_cast<int>(out.vars.size()) - 1;
    }
  }
  std::vector<Value> produced;
  for (std::span<Value> row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    produced.clear();
    DATALOG_RETURN_IF_ERROR(evaluate_clause_expression(ctx_, c, rel, row, &produced));
    for (Value& v : produced) {
      if (c.out->is_wildcard()) {
        out.rows.push_back(RowView(row));
      } else if (out_bound) {
        if (ctx_.join_key(row[static_cast<std::size_t>(out_col)]) == ctx_.join_key(v)) {
          out.rows.push_back(RowView(row));
        }
      } else {
        out.rows.push_back_widened(row, row.size() + 1).back() = std::move(v);
      }
    }
  }
  rel = std::move(out);
  return Status::OK();
}

// --- not / not-join: hash anti-join --------------------------------------------------------------

Status BodyEvaluator::apply_not(const ast::Not& n, Relation& rel, int depth) {
  std::vector<std::string> keys;
  if (n.is_join) {
    for (const auto& v : n.join_vars) add_unique(keys, v.name);
  } else {
    ast::Clause whole{n};
    for (const auto& v : clause_variables(whole)) {
      if (rel.binds(v)) keys.push_back(v);
    }
  }
  std::vector<int> cols;
  for (const auto& k : keys) {
    cols.push_back(rel.column(k));
    if (cols.back() < 0) {
      return Status(StatusCode::InvalidArgument,
                    fmt::format("join variable {} in (not-join ...) is not bound by any outer clause", k));
    }
  }
  Relation probe = distinct_projection(rel, cols, keys);
  Relation matched;
  DATALOG_RETURN_IF_ERROR(evaluate(n.body, std::move(probe), &matched, depth + 1));
  std::vector<int> matched_cols;
  for (const auto& k : keys) matched_cols.push_back(matched.column(k));
  KeyIndex excluded(keys.size());
  Row key;
  for (RowView row : matched.rows) {
    key.clear();
    for (int c : matched_cols) key.push_back(ctx_.join_key(row[static_cast<std::size_t>(c)]));
    excluded.add(key);
  }
  excluded.build();
  rel.rows.keep_if([&](RowView row) {
    key.clear();
    for (int c : cols) key.push_back(ctx_.join_key(row[static_cast<std::size_t>(c)]));
    return !excluded.contains(key);
  });
  return Status::OK();
}

// --- or / or-join: union of branches, hash-joined back -----------------------------------------------

Status BodyEvaluator::apply_or(const ast::Or& o, Relation& rel, int depth) {
  // Shared: variables the branches mention that are bound already. Fresh: variables the
  // branches bind (a not / not-join inside a branch binds nothing; its other variables are
  // existential).
  std::vector<std::string> shared, fresh;
  if (o.is_join) {
    for (const auto& v : o.join_vars) {
      if (rel.binds(v.name)) add_unique(shared, v.name);
      else add_unique(fresh, v.name);
    }
  } else {
    for (const auto& branch : o.branches) {
      for (const auto& clause : branch) {
        for (const auto& v : clause_variables(clause)) {
          if (rel.binds(v)) add_unique(shared, v);
        }
        for (const auto& v : clause_binds(clause)) {
          if (!rel.binds(v)) add_unique(fresh, v);
        }
      }
    }
  }
  std::vector<int> cols;
  for (const auto& s : shared) cols.push_back(rel.column(s));
  const Relation probe = distinct_projection(rel, cols, shared);

  // The union, over shared + fresh variables, without duplicates.
  std::vector<std::string> union_vars = shared;
  union_vars.insert(union_vars.end(), fresh.begin(), fresh.end());
  DistinctRows branch_rows;
  for (const auto& branch : o.branches) {
    Relation result;
    DATALOG_RETURN_IF_ERROR(evaluate(branch, probe, &result, depth + 1));
    std::vector<int> pick;
    bool complete = true;
    for (const auto& v : union_vars) {
      pick.push_back(result.column(v));
      if (pick.back() < 0) complete = false;
    }
    if (!complete) {
      // Minigraf requires every branch to bind the same new variables; the analyzer says so.
      return Status(StatusCode::InvalidArgument,
                    "all branches of (or ...) must introduce the same set of new variables");
    }
    Row t;
    for (RowView row : result.rows) {
      t.clear();
      for (int c : pick) t.push_back(row[static_cast<std::size_t>(c)]);
      branch_rows.insert_moved(t);
    }
  }
  const RowStore& tuples = branch_rows.rows();
  KeyIndex index(shared.size());  // entry t is tuples[t]
  Row key;
  for (RowView t : tuples) {
    key.clear();
    for (std::size_t i = 0; i < shared.size(); ++i) key.push_back(ctx_.join_key(t[i]));
    index.add(key);
  }
  index.build();
  Relation out;
  out.vars = rel.vars;
  out.vars.insert(out.vars.end(), fresh.begin(), fresh.end());
  for (RowView row : rel.rows) {
    key.clear();
    for (int c : cols) key.push_back(ctx_.join_key(row[static_cast<std::size_t>(c)]));
    for (std::uint32_t t = index.find(key); t != KeyIndex::kNone; t = index.next(t)) {
      std::span<Value> next = out.rows.push_back_widened(row, out.vars.size());
      for (std::size_t i = shared.size(); i < union_vars.size(); ++i) {
        next[row.size() + i - shared.size()] = tuples[t][i];
      }
    }
  }
  rel = std::move(out);
  return Status::OK();
}

// --- rule calls: hash join with derived tuples --------------------------------------------------------

Status BodyEvaluator::apply_rule_call(const ast::RuleCall& call, Relation& rel) {
  const TupleSet* tuples = derived_.tuples_for(call);
  Relation out;
  out.vars = rel.vars;
  struct ArgSlot {
    Slot::Kind kind = Slot::Kind::Ignore;
    int column = -1;
    Value constant;
  };
  std::vector<ArgSlot> args(call.args.size());
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    const ast::Term& t = call.args[i];
    if (const auto* c = std::get_if<Value>(&t)) {
      args[i] = ArgSlot{Slot::Kind::Constant, -1, ctx_.join_key(*c)};
    } else if (const auto* v = named_variable(t)) {
      if (const int col = rel.column(v->name); col >= 0) {
        args[i] = ArgSlot{Slot::Kind::Bound, col, {}};
      } else if (const int o = out.column(v->name); o >= 0) {
        args[i] = ArgSlot{Slot::Kind::Repeat, o, {}};
      } else {
        out.vars.push_back(v->name);
        args[i] = ArgSlot{Slot::Kind::Free, static_cast<int>(out.vars.size()) - 1, {}};
      }
    } else if (const auto* s = std::get_if<ast::Slot>(&t)) {
      return Status(StatusCode::InvalidArgument, fmt::format("missing bind value for slot '${}'", s->name));
    }
  }
  if (!tuples || tuples->empty()) {
    rel = std::move(out);
    rel.rows.clear();
    return Status::OK();
  }
  // Probe the set's index on the constant and bound positions (tuples hold join keys).
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i < args.size() && i < 64; ++i) {
    if (args[i].kind == Slot::Kind::Constant || args[i].kind == Slot::Kind::Bound) mask |= std::uint64_t{1} << i;
  }
  const TupleSet::Index& index = tuples->index(mask);
  Row key;
  for (RowView row : rel.rows) {
    DATALOG_RETURN_IF_ERROR(ctx_.check_interrupt());
    key.clear();
    for (const ArgSlot& a : args) {
      if (a.kind == Slot::Kind::Constant) key.push_back(a.constant);
      if (a.kind == Slot::Kind::Bound) key.push_back(ctx_.join_key(row[static_cast<std::size_t>(a.column)]));
    }
    auto it = index.find(key);
    if (it == index.end()) continue;
    for (const Row* tuple : it->second) {
      const Row& t = *tuple;
      std::span<Value> next = out.rows.push_back_widened(row, out.vars.size());
      bool ok = true;
      for (std::size_t i = 0; i < args.size() && ok; ++i) {
        if (args[i].kind == Slot::Kind::Free) next[static_cast<std::size_t>(args[i].column)] = t[i];
        if (args[i].kind == Slot::Kind::Repeat) {
          ok = ctx_.join_key(next[static_cast<std::size_t>(args[i].column)]) == ctx_.join_key(t[i]);
        }
      }
      if (!ok) out.rows.pop_back();
    }
  }
  rel = std::move(out);
  return Status::OK();
}

}  // namespace datalog::eval
