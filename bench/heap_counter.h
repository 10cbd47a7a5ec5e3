// bench/heap_counter.h: counts the bytes the process holds on the malloc heap, and their peak.
//
// heap_counter.cpp replaces malloc, calloc, realloc, free and the aligned allocators of the
// program with wrappers over glibc's own (__libc_malloc and friends) that add or subtract
// malloc_usable_size. SQLite, LMDB's callers and the extension all allocate through these, so
// the peak covers every heap byte of the process. Counting is off until heap_counting_start(),
// which the memory child calls before it loads anything. Builds with sanitizers leave the file
// out (their allocator must stay in place); heap_counter_available() then says false.
#pragma once

namespace bench {

bool heap_counter_available();
void heap_counting_start();
long long heap_peak_bytes();
long long heap_current_bytes();

}  // namespace bench
