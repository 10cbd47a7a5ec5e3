// engine/eval/large_buffer_allocator.h: the allocator of relation buffers. Blocks of at least
// kLargeBlockBytes are mapped directly and advised to use transparent huge pages; smaller ones
// come from operator new.
//
// Why: a relation of 100K rows holds tens of megabytes of values. malloc maps blocks that large
// afresh and unmaps them on free, so every query faulted its relations in again, one 4 KB page
// at a time: 17,000 faults for one 100K-row query with temporal metadata, most of its time on a
// paravirtualized VM. With huge pages the same buffers take a few dozen faults. Where the
// kernel gives no huge pages (transparent_hugepage "never"), the advice is ignored and the
// block behaves as malloc's would.
//
// Thread safety: stateless; safe from any thread. Allocation failure throws std::bad_alloc, as
// std::allocator does.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <new>

namespace datalog::eval {

inline constexpr std::size_t kLargeBlockBytes = std::size_t{4} << 20;

template <class T>
struct LargeBufferAllocator {
  using value_type = T;

  LargeBufferAllocator() = default;
  template <class U>
  LargeBufferAllocator(const LargeBufferAllocator<U>&) {}

  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
  static std::size_t mapped_bytes(std::size_t n) {
    return (n * sizeof(T) + kHugePage - 1) / kHugePage * kHugePage;
  }

  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    if (n * sizeof(T) < kLargeBlockBytes) return static_cast<T*>(::operator new(n * sizeof(T)));
    // Huge pages need 2 MB-aligned addresses: map a huge page more, then unmap what lies
    // outside the aligned range.
    const std::size_t bytes = mapped_bytes(n);
    void* p = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<std::uintptr_t>(p);
    const std::uintptr_t aligned = (start + kHugePage - 1) / kHugePage * kHugePage;
    if (aligned > start) ::munmap(p, aligned - start);
    const std::uintptr_t tail = start + bytes + kHugePage - (aligned + bytes);
    if (tail > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
    ::madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // advice: may be ignored
    return reinterpret_cast<T*>(aligned);
  }

  void deallocate(T* p, std::size_t n) noexcept {
    if (n * sizeof(T) < kLargeBlockBytes) {
      ::operator delete(p);
      return;
    }
    ::munmap(p, mapped_bytes(n));
  }

  template <class U>
  bool operator==(const LargeBufferAllocator<U>&) const {
    return true;
  }
};

}  // namespace datalog::eval
