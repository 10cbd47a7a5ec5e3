// Sanitizer builds: the sanitizer's allocator stays in place and no heap figure is reported.
#include "heap_counter.h"

namespace bench {

bool heap_counter_available() { return false; }
void heap_counting_start() {}
long long heap_peak_bytes() { return -1; }
long long heap_current_bytes() { return -1; }

}  // namespace bench
