#include "engine/large_buffer_allocator.h"

#include <pthread.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <vector>

namespace datalog {

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Blocks below a huge page are mapped in steps of kMediumStep: a 200 KB block aligned to 2 MB
// would be backed by a whole huge page.
constexpr std::size_t kMediumStep = std::size_t{64} << 10;

std::size_t round_up(std::size_t bytes, std::size_t step) { return (bytes + step - 1) / step * step; }

std::size_t mapped_size(std::size_t bytes) {
  return bytes < kHugePage ? round_up(bytes, kMediumStep) : round_up(bytes, kHugePage);
}

struct KeptBlock {
  void* block;
  std::size_t size;  // its mapped size
};

struct KeptBlocks {
  std::mutex mutex;
  std::vector<KeptBlock> blocks;
  std::size_t bytes = 0;
};

KeptBlocks& kept() {
  // Never destroyed: blocks may be freed during exit. A fork while another thread holds the
  // mutex would leave the child's copy locked for good, so fork waits for it (as malloc's does).
  static KeptBlocks* k = [] {
    auto* blocks = new KeptBlocks;
    ::pthread_atfork([] { kept().mutex.lock(); }, [] { kept().mutex.unlock(); },
                     [] { kept().mutex.unlock(); });
    return blocks;
  }();
  return *k;
}

// Huge pages need 2 MB-aligned addresses: map a huge page more, then unmap what lies outside
// the aligned range.
void* map_aligned(std::size_t size) {
  if (size < kHugePage) {
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    return p;
  }
  void* p = ::mmap(nullptr, size + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  const auto start = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > start) ::munmap(p, aligned - start);
  const std::uintptr_t tail = start + size + kHugePage - (aligned + size);
  if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + size), tail);
  ::madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);  // advice: may be ignored
  return reinterpret_cast<void*>(aligned);
}

}  // namespace

void* take_large_block(std::size_t bytes) {
  const std::size_t size = mapped_size(bytes);
  {
    // A kept block of the same mapped size: a repeated query asks for the same sizes again.
    KeptBlocks& k = kept();
    std::lock_guard lock(k.mutex);
    auto it = std::find_if(k.blocks.rbegin(), k.blocks.rend(), [&](const KeptBlock& b) { return b.size == size; });
    if (it != k.blocks.rend()) {
      void* block = it->block;
      k.bytes -= size;
      k.blocks.erase(std::next(it).base());
      return block;
    }
  }
  return map_aligned(size);
}

void give_large_block(void* block, std::size_t bytes) noexcept {
  const std::size_t size = mapped_size(bytes);
  if (size > kMaxKeptBytes) {
    ::munmap(block, size);
    return;
  }
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  try {
    k.blocks.reserve(k.blocks.size() + 1);  // the only step that can fail: before any change
  } catch (...) {
    ::munmap(block, size);
    return;
  }
  // Kept newest last; the oldest make room when the bound would be passed.
  std::size_t drop = 0;
  while (k.bytes + size > kMaxKeptBytes) {
    k.bytes -= k.blocks[drop].size;
    ::munmap(k.blocks[drop].block, k.blocks[drop].size);
    ++drop;
  }
  k.blocks.erase(k.blocks.begin(), k.blocks.begin() + static_cast<std::ptrdiff_t>(drop));
  k.blocks.push_back(KeptBlock{block, size});
  k.bytes += size;
}

void release_kept_large_blocks() noexcept {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  for (const KeptBlock& b : k.blocks) ::munmap(b.block, b.size);
  k.blocks.clear();
  k.bytes = 0;
}

std::size_t kept_large_block_bytes() {
  KeptBlocks& k = kept();
  std::lock_guard lock(k.mutex);
  return k.bytes;
}

}  // namespace datalog
