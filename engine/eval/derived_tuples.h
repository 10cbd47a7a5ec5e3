// engine/eval/derived_tuples.h: the facts rules derive, as sets of tuples per rule name, and
// how a rule call finds the set it must read (semi-naive evaluation reads a delta at one call).
#pragma once

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/relation.h"
#include "engine/value_hash.h"

namespace datalog::eval {

// A set of tuples; insertion order is irrelevant (results are sets, LANGUAGE.md §6).
class TupleSet {
 public:
  bool insert(Row row) { return rows_.insert(std::move(row)).second; }
  bool contains(const Row& row) const { return rows_.count(row) > 0; }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  void merge(const TupleSet& other) {
    for (const Row& r : other) rows_.insert(r);
  }

 private:
  std::unordered_set<Row, RowHash> rows_;
};

class DerivedLookup {
 public:
  // The set a call reads: an override for this very call (a delta), else the rule's full set.
  const TupleSet* tuples_for(const ast::RuleCall& call) const {
    if (auto it = overrides_.find(&call); it != overrides_.end()) return it->second;
    if (auto it = full_.find(call.name); it != full_.end()) return it->second;
    return nullptr;
  }
  void set_full(const std::string& name, const TupleSet* set) { full_[name] = set; }
  void set_override(const ast::RuleCall* call, const TupleSet* set) { overrides_[call] = set; }
  void clear_overrides() { overrides_.clear(); }

 private:
  std::unordered_map<std::string, const TupleSet*> full_;
  std::unordered_map<const ast::RuleCall*, const TupleSet*> overrides_;
};

}  // namespace datalog::eval
