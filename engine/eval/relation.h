// engine/eval/relation.h: a bag of variable bindings — the unit every operator consumes and
// produces (relation-at-a-time evaluation).
#pragma once

#include <string>
#include <vector>

#include "engine/value.h"

namespace datalog::eval {

using Row = std::vector<Value>;

struct Relation {
  std::vector<std::string> vars;  // column names ("?x"), no duplicates
  std::vector<Row> rows;

  // Column of var, or -1.
  int column(const std::string& var) const {
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (vars[i] == var) return static_cast<int>(i);
    }
    return -1;
  }
  bool binds(const std::string& var) const { return column(var) >= 0; }

  // The relation with no columns and one row: the identity of joins.
  static Relation unit() {
    Relation r;
    r.rows.emplace_back();
    return r;
  }
};

}  // namespace datalog::eval
