// The stuck-call watchdog (lmdb_store/stuck_call_watchdog.h): a guarded call that burns CPU
// without returning, as LMDB does on a page whose key count underflows, comes back as
// kPageFault; a call that waits, or one that is not watched, runs to its end.
#include <signal.h>
#include <time.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/stuck_call_watchdog.h"

namespace datalog::store::testing {
namespace {

using Clock = std::chrono::steady_clock;

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// Spins until the thread has used `seconds` of CPU or forever (seconds < 0); returns 1 if it
// ended by itself.
int spin(double seconds) {
  const double start = thread_cpu_seconds();
  std::atomic<std::uint64_t> sink{0};
  while (seconds < 0 || thread_cpu_seconds() - start < seconds) sink.fetch_add(1, std::memory_order_relaxed);
  return 1;
}

TEST_CASE("a guarded call stuck in a loop is stopped by the watchdog", "[fault_guard]") {
  StuckCallWatch watch;
  const auto start = Clock::now();
  CHECK(guarded(nullptr, [] { return spin(-1); }) == kPageFault);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Stopped after the CPU limit, and within a few looks of it (generous: a loaded machine).
  CHECK(seconds >= std::chrono::duration<double>(kStuckCallCpu).count());
  CHECK(seconds < 30);
  // The thread is guarded again afterwards, and calls that return are left alone.
  CHECK(guarded(nullptr, [] { return 7; }) == 7);
  CHECK(guarded(nullptr, [] { ::raise(SIGSEGV); return 0; }) == kPageFault);
}

TEST_CASE("a call that waits rather than computes is never taken for stuck", "[fault_guard]") {
  StuckCallWatch watch;
  CHECK(guarded(nullptr, [] {
          std::this_thread::sleep_for(kStuckCallCpu + std::chrono::milliseconds(700));
          return 1;
        }) == 1);
}

TEST_CASE("commits and drops are not watched", "[fault_guard]") {
  StuckCallWatch watch;
  const double limit = std::chrono::duration<double>(kStuckCallCpu).count();
  CHECK(guarded(nullptr, [limit] { return spin(limit + 0.7); }, Watch::No) == 1);
}

}  // namespace
}  // namespace datalog::store::testing
