// engine/eval/anti_join.cpp: not / not-join as a hash anti-join: the body runs once over the
// distinct bindings of the join variables, and the rows whose binding it matched go.
#include "engine/eval/body_evaluator.h"

#include <fmt/format.h>

#include "engine/eval/distinct_rows.h"
#include "engine/eval/key_index.h"

namespace datalog::eval {

using ast::named_variable;

Status BodyEvaluator::apply_not(const ast::Not& n, Relation& rel, int depth) {
  std::vector<std::string> keys;
  if (n.is_join) {
    for (const auto& v : n.join_vars) add_variable(keys, v.name);
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

}  // namespace datalog::eval
