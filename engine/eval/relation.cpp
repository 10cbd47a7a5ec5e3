#include "engine/eval/relation.h"

#include <algorithm>

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

// About 2 MB of cells a chunk: the large-buffer allocator's unit (a huge page), small next to
// the relations that need many, and filled in well under a millisecond.
constexpr std::size_t kChunkBytes = std::size_t{2} << 20;

RowStore::~RowStore() {
  for (Cells& cells : chunks_) give_cell_buffer(std::move(cells));
}

RowStore& RowStore::operator=(RowStore&& other) noexcept {
  if (this == &other) return *this;
  for (Cells& cells : chunks_) give_cell_buffer(std::move(cells));
  chunks_ = std::move(other.chunks_);
  width_ = other.width_;
  count_ = std::exchange(other.count_, 0);
  chunk_shift_ = other.chunk_shift_;
  return *this;
}

void RowStore::set_width(std::size_t width) {
  width_ = width;
  // The most rows, a power of two, whose cells fit a chunk (at least one row; without columns,
  // every row in the first chunk, which holds no cells).
  const std::size_t fit = width == 0 ? std::size_t{1} << 62 : std::max<std::size_t>(1, kChunkBytes / (sizeof(Value) * width));
  chunk_shift_ = 0;
  while ((std::size_t{2} << chunk_shift_) <= fit) ++chunk_shift_;
}

void RowStore::add_chunk() {
  Cells cells = take_cell_buffer();
  // The first chunk starts small and doubles (most relations are small); later ones are needed
  // only once the first is full, and are taken whole, so they never move.
  if (!chunks_.empty()) cells.reserve(chunk_rows() * width_);
  chunks_.push_back(std::move(cells));
}

// The first chunk, or the last of a copy (a copied vector has no spare capacity).
void RowStore::grow(Cells& chunk) {
  const std::size_t full = chunk_rows() * width_;
  chunk.reserve(std::min(full, std::max(chunk.capacity() * 2, chunk.size() + width_)));
}

void RowStore::reserve(std::size_t rows, std::size_t width) {
  if (count_ == 0) set_width(width);
  if (chunks_.empty()) add_chunk();
  chunks_.front().reserve(std::min(rows, chunk_rows()) * width_);
  chunks_.reserve((rows + chunk_rows() - 1) >> chunk_shift_);
}

void RowStore::truncate(std::size_t rows) {
  const std::size_t keep_chunks = rows == 0 ? std::min<std::size_t>(chunks_.size(), 1)
                                            : ((rows - 1) >> chunk_shift_) + 1;
  while (chunks_.size() > keep_chunks) {
    give_cell_buffer(std::move(chunks_.back()));
    chunks_.pop_back();
  }
  if (!chunks_.empty()) {
    const std::size_t in_last = rows - ((chunks_.size() - 1) << chunk_shift_);
    chunks_.back().resize(in_last * width_);
  }
  count_ = rows;
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
