#include "engine/eval/relation.h"

namespace datalog::eval {

namespace {

// Spare cell buffers of this thread, bounded (about 20 MB of values in all) so the largest
// relations of an evaluation are not kept for the life of the thread.
constexpr std::size_t kMaxSpares = 16;
constexpr std::size_t kMaxSpareCells = std::size_t{1} << 19;

struct SpareBuffers {
  std::vector<RowStore::Cells> buffers;
  std::size_t cells = 0;  // total capacity of buffers
};

SpareBuffers& spares() {
  thread_local SpareBuffers s;
  return s;
}

}  // namespace

RowStore::~RowStore() { give_cell_buffer(std::move(cells_)); }

RowStore& RowStore::operator=(RowStore&& other) noexcept {
  if (this == &other) return *this;
  give_cell_buffer(std::move(cells_));
  cells_ = std::move(other.cells_);
  width_ = other.width_;
  count_ = std::exchange(other.count_, 0);
  return *this;
}

RowStore::Cells RowStore::take_cell_buffer() {
  SpareBuffers& s = spares();
  if (s.buffers.empty()) return {};
  Cells cells = std::move(s.buffers.back());
  s.buffers.pop_back();
  s.cells -= cells.capacity();
  return cells;
}

void RowStore::give_cell_buffer(Cells cells) {
  SpareBuffers& s = spares();
  if (cells.capacity() == 0 || s.buffers.size() >= kMaxSpares ||
      s.cells + cells.capacity() > kMaxSpareCells) {
    return;
  }
  cells.clear();
  s.cells += cells.capacity();
  s.buffers.push_back(std::move(cells));
}

}  // namespace datalog::eval
