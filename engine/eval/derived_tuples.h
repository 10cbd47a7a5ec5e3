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

// A set of tuples; insertion order is irrelevant (results are sets, LANGUAGE.md §6). Values
// are stored as join keys (EvalContext::join_key), so lookups compare them directly.
// Lookups by some positions use hash indexes built on first use and kept up to date on every
// insert, so semi-naive iterations cost what their deltas cost, not the whole set again.
class TupleSet {
 public:
  using Key = Row;
  using Index = std::unordered_map<Key, std::vector<const Row*>, RowHash>;

  bool insert(Row row) {
    auto [it, fresh] = rows_.insert(std::move(row));
    if (fresh) {
      for (auto& [mask, index] : indexes_) index[key_of(*it, mask)].push_back(&*it);
    }
    return fresh;
  }
  bool contains(const Row& row) const { return rows_.count(row) > 0; }
  void reserve(std::size_t rows) { rows_.reserve(rows); }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }
  auto begin() const { return rows_.begin(); }
  auto end() const { return rows_.end(); }
  void merge(const TupleSet& other) {
    for (const Row& r : other) insert(r);
  }

  // Whether one probe should pass over the tuples instead of building the index on mask: only
  // the first time, and only while no such index exists. A set probed again (a recursive rule's
  // full set, iteration after iteration) gets its index, which later inserts keep up to date.
  bool first_probe_without_index(std::uint64_t mask) const {
    if (probed_without_index_ || indexes_.count(mask) > 0) return false;
    probed_without_index_ = true;
    return true;
  }
  // The tuples by the values at the positions set in mask (bit i = position i).
  const Index& index(std::uint64_t mask) const {
    auto it = indexes_.find(mask);
    if (it == indexes_.end()) {
      it = indexes_.emplace(mask, Index{}).first;
      for (const Row& r : rows_) it->second[key_of(r, mask)].push_back(&r);
    }
    return it->second;
  }

 private:
  static Key key_of(const Row& r, std::uint64_t mask) {
    Key k;
    for (std::size_t i = 0; i < r.size() && i < 64; ++i) {
      if (mask & (std::uint64_t{1} << i)) k.push_back(r[i]);
    }
    return k;
  }

  std::unordered_set<Row, RowHash> rows_;  // node-based: element addresses are stable
  mutable std::unordered_map<std::uint64_t, Index> indexes_;
  mutable bool probed_without_index_ = false;
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
