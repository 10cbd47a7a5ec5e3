#include "heap_counter.h"

#include <malloc.h>

#include <atomic>
#include <cerrno>
#include <cstddef>

extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* ptr, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* ptr);
}

namespace {

std::atomic<bool> counting{false};
std::atomic<long long> current{0};
std::atomic<long long> peak{0};

void note_alloc(void* p) {
  if (p == nullptr || !counting.load(std::memory_order_relaxed)) return;
  const auto bytes = static_cast<long long>(malloc_usable_size(p));
  const long long now = current.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  long long seen = peak.load(std::memory_order_relaxed);
  while (now > seen && !peak.compare_exchange_weak(seen, now, std::memory_order_relaxed)) {}
}

void note_free(void* p) {
  if (p == nullptr || !counting.load(std::memory_order_relaxed)) return;
  current.fetch_sub(static_cast<long long>(malloc_usable_size(p)), std::memory_order_relaxed);
}

}  // namespace

extern "C" {

void* malloc(std::size_t size) noexcept {
  void* p = __libc_malloc(size);
  note_alloc(p);
  return p;
}

void* calloc(std::size_t count, std::size_t size) noexcept {
  void* p = __libc_calloc(count, size);
  note_alloc(p);
  return p;
}

void* realloc(void* ptr, std::size_t size) noexcept {
  note_free(ptr);
  void* p = __libc_realloc(ptr, size);
  note_alloc(p != nullptr || size == 0 ? p : ptr);  // a failed realloc keeps the old block
  return p;
}

void free(void* ptr) noexcept {
  note_free(ptr);
  __libc_free(ptr);
}

void* memalign(std::size_t alignment, std::size_t size) noexcept {
  void* p = __libc_memalign(alignment, size);
  note_alloc(p);
  return p;
}

void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  return memalign(alignment, size);
}

int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  void* p = memalign(alignment, size);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"

namespace bench {

bool heap_counter_available() { return true; }
void heap_counting_start() {
  current.store(0);
  peak.store(0);
  counting.store(true);
}
long long heap_peak_bytes() { return peak.load(); }
long long heap_current_bytes() { return current.load(); }

}  // namespace bench
