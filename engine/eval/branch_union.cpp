// engine/eval/branch_union.cpp: or / or-join as the union of its branches, each run over the
// distinct bindings of the shared variables, hash-joined back to the relation.
#include "engine/eval/body_evaluator.h"

#include "engine/eval/distinct_rows.h"
#include "engine/eval/key_index.h"

namespace datalog::eval {

using ast::named_variable;

Status BodyEvaluator::apply_or(const ast::Or& o, Relation& rel, int depth) {
  // Shared: variables the branches mention that are bound already. Fresh: variables the
  // branches bind (a not / not-join inside a branch binds nothing; its other variables are
  // existential).
  std::vector<std::string> shared, fresh;
  if (o.is_join) {
    for (const auto& v : o.join_vars) {
      if (rel.binds(v.name)) add_variable(shared, v.name);
      else add_variable(fresh, v.name);
    }
  } else {
    for (const auto& branch : o.branches) {
      for (const auto& clause : branch) {
        for (const auto& v : clause_variables(clause)) {
          if (rel.binds(v)) add_variable(shared, v);
        }
        for (const auto& v : clause_binds(clause)) {
          if (!rel.binds(v)) add_variable(fresh, v);
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

}  // namespace datalog::eval
