// engine/eval/distinct_rows.h: rows kept once each, for projections and unions that drop
// duplicates.
//
// The rows sit side by side in a RowStore; which rows are there is an open-addressing table of
// row numbers with their hashes beside them, so adding a row allocates nothing of its own (a set
// of rows as nodes cost a heap node and a vector per row, and dominated `not` and `or`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/eval/relation.h"
#include "engine/large_buffer_allocator.h"
#include "engine/value_hash.h"

namespace datalog::eval {

class DistinctRows {
 public:
  // expected: about how many rows will be added (the table then never grows).
  explicit DistinctRows(std::size_t expected = 0) { resize(table_size_for(expected)); }

  // Adds row unless an equal row is there; true when added. The values are moved in.
  bool insert_moved(std::span<Value> row) {
    bool added = false;
    find_or_insert_moved(row, &added);
    return added;
  }
  // The number of the row equal to row, adding it (its values moved in) when missing; rows are
  // numbered in the order they were added.
  std::uint32_t find_or_insert_moved(std::span<Value> row, bool* added) {
    const std::size_t h = RowHash{}(row);
    std::size_t b = find(h, row);
    *added = slots_[b] == kEmpty;
    if (!*added) return slots_[b];
    if ((rows_.size() + 1) * 2 > slots_.size()) {
      resize(slots_.size() * 2);
      b = find(h, row);
    }
    slots_[b] = static_cast<std::uint32_t>(rows_.size());
    hashes_.push_back(h);
    rows_.push_back_moved(row);
    return slots_[b];
  }

  // The number of the row equal to row, or kNone.
  std::uint32_t find(RowView row) const {
    const std::size_t b = find(RowHash{}(row), row);
    return slots_[b];
  }
  static constexpr std::uint32_t kNone = 0xffffffffu;

  const RowStore& rows() const { return rows_; }
  RowStore take_rows() { return std::move(rows_); }

 private:
  static constexpr std::uint32_t kEmpty = kNone;

  static std::size_t table_size_for(std::size_t rows) {
    std::size_t size = 16;
    while (size < rows * 2) size <<= 1;
    return size;
  }
  // The slot holding a row equal to row, or the empty slot where it would go.
  std::size_t find(std::size_t h, std::span<const Value> row) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t b = h & mask;
    while (slots_[b] != kEmpty && !(hashes_[slots_[b]] == h && same_row(rows_[slots_[b]], row))) {
      b = (b + 1) & mask;
    }
    return b;
  }
  void resize(std::size_t size) {
    slots_.assign(size, kEmpty);
    const std::size_t mask = size - 1;
    for (std::uint32_t r = 0; r < hashes_.size(); ++r) {
      std::size_t b = hashes_[r] & mask;
      while (slots_[b] != kEmpty) b = (b + 1) & mask;
      slots_[b] = r;
    }
  }

  RowStore rows_;
  // Large-buffer allocated, as the rows are: a repeated query faults nothing in again.
  std::vector<std::size_t, LargeBufferAllocator<std::size_t>> hashes_;   // per row
  std::vector<std::uint32_t, LargeBufferAllocator<std::uint32_t>> slots_;  // row numbers; size a power of two, at most half full
};

// The distinct rows of rel's columns cols, as a relation whose variables are names.
inline Relation distinct_projection(const Relation& rel, const std::vector<int>& cols,
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

}  // namespace datalog::eval
