// engine/large_buffer_allocator.h: the allocator of the evaluator's large buffers (relations,
// scan matches, window columns). Blocks of at least kLargeBlockBytes (malloc's own mapping
// threshold) are mapped directly, those of 2 MB and more on 2 MB bounds with transparent huge
// pages advised, and kept for reuse when freed, up to kMaxKeptBytes for the whole process;
// smaller blocks come from operator new.
//
// Why: a relation of 100K rows holds tens of megabytes of values, and memory the process has
// not touched before is slow to fault in: on this project's VM, 2.4 ms per MB in 4 KB pages and
// still 1.4 ms per MB in huge pages. malloc maps blocks over 32 MB afresh on every call and
// gives smaller ones back to the system as its thresholds decide, so the same query ran at
// 22 ms or at 212 ms depending on what ran before it. Blocks of a few hundred KB did the same:
// a 10K-row join grouped by department spent a sixth of its time in page faults from Python.
// Kept blocks make a repeated large query fault nothing in. The price is up to kMaxKeptBytes of
// memory kept after the largest queries.
//
// Thread safety: safe from any thread (the kept blocks are shared under a mutex; large blocks
// are few per query). Allocation failure throws std::bad_alloc, as std::allocator does.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

#include "engine/query_memory.h"
#include "engine/value.h"

namespace datalog {

inline constexpr std::size_t kLargeBlockBytes = std::size_t{128} << 10;
inline constexpr std::size_t kMaxKeptBytes = std::size_t{128} << 20;

// A block of at least bytes (>= kLargeBlockBytes), 2 MB-aligned: a kept one or a new mapping.
void* take_large_block(std::size_t bytes);
// Gives back a block from take_large_block(bytes): kept for reuse, or unmapped when the kept
// blocks would exceed kMaxKeptBytes.
void give_large_block(void* block, std::size_t bytes) noexcept;
// Unmaps every kept block (tests, and a process that wants its memory back).
void release_kept_large_blocks() noexcept;
std::size_t kept_large_block_bytes();

template <class T>
struct LargeBufferAllocator {
  using value_type = T;

  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    QueryMemory::reserve(bytes);  // the query's memory budget may refuse it (query_memory.h)
    try {
      if (bytes < kLargeBlockBytes) return static_cast<T*>(::operator new(bytes));
      return static_cast<T*>(take_large_block(bytes));
    } catch (...) {
      QueryMemory::on_free(bytes);
      throw;
    }
  }

  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    QueryMemory::on_free(bytes);
    if (bytes < kLargeBlockBytes) {
      ::operator delete(p);
      return;
    }
    give_large_block(p, bytes);
  }

  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
};

// A column of values that may run to megabytes (a window function's output, say).
using ValueBuffer = std::vector<Value, LargeBufferAllocator<Value>>;

}  // namespace datalog
