// engine/eval/relation.h: a bag of variable bindings — the unit every operator consumes and
// produces (relation-at-a-time evaluation).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/large_buffer_allocator.h"
#include "engine/value.h"

namespace datalog::eval {

using Row = std::vector<Value>;       // one row built on its own (a key, a tuple, a result)
using RowView = std::span<const Value>;  // one row of a relation, read in place

// The rows of a relation, side by side (row-major) in chunks of about 2 MB: building,
// filtering and joining allocate per chunk, not per row. Every row has the width of the first
// one pushed (the relation's columns); a relation without columns still counts its rows (the
// unit relation has one).
//
// Why chunks, not one vector: a vector that doubles moves every value it holds, and a relation
// of millions of rows then spends seconds in one move that nothing interrupts (a query must stop
// within a second of sqlite3_interrupt), holding old and new buffers at once. A chunk, once
// full, never moves; only the first grows by doubling, up to one chunk's size. A chunk holds a
// power of two of rows, so finding a row is a shift and a mask.
//
// Cell buffers are recycled per thread (take_cell_buffer, give_cell_buffer): a query builds
// and drops relations of the same sizes again and again, and buffers handed back to the system
// would have to be faulted in afresh each time.
class RowStore {
 public:
  using Cells = std::vector<Value, LargeBufferAllocator<Value>>;  // row-major cells of one chunk

  RowStore() = default;
  ~RowStore();
  RowStore(RowStore&& other) noexcept
      : chunks_(std::move(other.chunks_)),
        width_(other.width_),
        count_(std::exchange(other.count_, 0)),
        chunk_shift_(other.chunk_shift_) {}
  RowStore& operator=(RowStore&& other) noexcept;
  RowStore(const RowStore& other) = default;
  RowStore& operator=(const RowStore& other) = default;

  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }

  RowView operator[](std::size_t i) const { return {cell(i), width_}; }
  std::span<Value> operator[](std::size_t i) { return {cell(i), width_}; }
  RowView back() const { return (*this)[count_ - 1]; }

  void push_back(RowView row) {
    Cells& cells = start_row(row.size());
    cells.insert(cells.end(), row.begin(), row.end());
  }
  // Moves the values in; the caller's row keeps its storage (to be refilled, not reallocated).
  void push_back_moved(std::span<Value> row) {
    Cells& cells = start_row(row.size());
    for (Value& v : row) cells.push_back(std::move(v));
  }
  void push_back(Row&& row) { push_back_moved(row); }
  // Appends row widened with nils to width columns, and returns the new row to fill in; it stays
  // valid until the store next grows.
  std::span<Value> push_back_widened(RowView row, std::size_t width) {
    // Element by element after start_row's capacity check: vector's range insert and resize
    // are general paths that cost several times more for the two or three values of a row.
    Cells& cells = start_row(width);
    for (const Value& v : row) cells.emplace_back(v);
    for (std::size_t i = row.size(); i < width; ++i) cells.emplace_back();
    return (*this)[count_ - 1];
  }
  void pop_back() { truncate(count_ - 1); }
  void clear() { truncate(0); }
  // Room for rows of width columns: the first chunk is sized for them (up to a chunk).
  void reserve(std::size_t rows, std::size_t width);

  // Keeps, in order, the rows for which keep(row) holds.
  template <class Keep>
  void keep_if(Keep keep) {
    std::size_t kept = 0;
    for (std::size_t r = 0; r < count_; ++r) {
      if (!keep(RowView((*this)[r]))) continue;
      if (kept != r) std::move(cell(r), cell(r) + width_, cell(kept));
      ++kept;
    }
    truncate(kept);
  }

  template <class Store, class View>
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = View;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = View;
    Iterator(Store* store, std::size_t i) : store_(store), i_(i) {}
    View operator*() const { return (*store_)[i_]; }
    Iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator!=(const Iterator& other) const { return i_ != other.i_; }
    bool operator==(const Iterator& other) const { return i_ == other.i_; }

   private:
    Store* store_;
    std::size_t i_;
  };
  using const_iterator = Iterator<const RowStore, RowView>;
  using iterator = Iterator<RowStore, std::span<Value>>;
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, count_}; }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, count_}; }

 private:
  std::size_t chunk_rows() const { return std::size_t{1} << chunk_shift_; }
  const Value* cell(std::size_t row) const {
    return chunks_[row >> chunk_shift_].data() + (row & (chunk_rows() - 1)) * width_;
  }
  Value* cell(std::size_t row) {
    return chunks_[row >> chunk_shift_].data() + (row & (chunk_rows() - 1)) * width_;
  }
  // Counts a new row of width cells and returns the chunk to append them to, with room for them.
  Cells& start_row(std::size_t width) {
    if (count_ == 0) set_width(width);
    assert(width == width_);
    const std::size_t chunk = count_ >> chunk_shift_;
    if (chunk == chunks_.size()) add_chunk();
    Cells& cells = chunks_[chunk];
    if (cells.capacity() - cells.size() < width_) grow(cells);
    ++count_;
    return cells;
  }
  void set_width(std::size_t width);
  void add_chunk();
  void grow(Cells& chunk);  // doubles, up to a full chunk
  void truncate(std::size_t rows);  // keeps the first rows
  static Cells take_cell_buffer();          // empty; from this thread's spares
  static void give_cell_buffer(Cells cells);  // kept as a spare, within a bound

  std::vector<Cells> chunks_;  // full but the last; never more than the rows need but the first
  std::size_t width_ = 0;
  std::size_t count_ = 0;
  unsigned chunk_shift_ = 0;  // a chunk holds 2^chunk_shift_ rows
};

inline bool same_row(RowView a, RowView b) { return std::equal(a.begin(), a.end(), b.begin(), b.end()); }

// Adds name to a list of variable names unless it is there already.
inline void add_variable(std::vector<std::string>& vars, const std::string& name) {
  if (std::find(vars.begin(), vars.end(), name) == vars.end()) vars.push_back(name);
}

struct Relation {
  std::vector<std::string> vars;  // column names ("?x"), no duplicates
  RowStore rows;

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
    r.rows.push_back(RowView());
    return r;
  }
};

}  // namespace datalog::eval
