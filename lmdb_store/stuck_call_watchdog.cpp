#include "lmdb_store/stuck_call_watchdog.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "lmdb_store/page_fault_guard.h"

namespace datalog::store {
namespace {

using fault_detail::Slot;

constexpr auto kInterval = std::chrono::milliseconds(250);

struct Watchdog {
  std::mutex mutex;  // guards users, stop, thread
  std::condition_variable wake;
  int users = 0;
  bool stop = false;
  std::thread thread;
  pid_t pid = 0;  // the process that started thread
};

Watchdog& watchdog() {
  static Watchdog* w = new Watchdog;  // never destroyed: graphs may close during exit
  return *w;
}

std::int64_t cpu_ns(unsigned long thread) {
  clockid_t clock;
  if (pthread_getcpuclockid(static_cast<pthread_t>(thread), &clock) != 0) return -1;
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return -1;
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// What the watchdog saw of a slot's call in flight: its serial and its thread's CPU time then.
struct Seen {
  std::uint64_t call = 0;  // 0: no watched call in flight
  std::int64_t cpu_at_first_sight = 0;
};

// One look at every slot. Slots are released under slot_mutex(), so a thread seen here is alive
// until the look ends, and pthread_sigqueue never names a thread that has gone.
void look(std::vector<Seen>& seen) {
  std::size_t count = 0;
  Slot* slots = fault_detail::slot_table(&count);
  std::lock_guard<std::mutex> lock(fault_detail::slot_mutex());
  const std::int64_t limit_ns = std::chrono::nanoseconds(kStuckCallCpu).count();
  for (std::size_t i = 0; i < count; ++i) {
    Slot& slot = slots[i];
    const unsigned long thread = slot.thread.load(std::memory_order_relaxed);
    const bool in_call = thread != 0 && slot.trap.load(std::memory_order_relaxed) != nullptr &&
                         slot.watched.load(std::memory_order_relaxed);
    const std::uint64_t call = slot.calls.load(std::memory_order_relaxed);
    if (!in_call) {
      seen[i].call = 0;
      continue;
    }
    const std::int64_t now = cpu_ns(thread);
    if (now < 0) continue;
    if (seen[i].call != call) {
      seen[i] = Seen{call, now};
      continue;
    }
    if (now - seen[i].cpu_at_first_sight < limit_ns) continue;
    // The handler leaves the call only if it is still this one (page_fault_guard.cpp).
    slot.kicked.store(call, std::memory_order_relaxed);
    sigval marker{};
    marker.sival_ptr = const_cast<void*>(fault_detail::watchdog_kick_marker());
    pthread_sigqueue(static_cast<pthread_t>(thread), SIGBUS, marker);
    seen[i].call = 0;
  }
}

void run(Watchdog& w) {
  std::size_t count = 0;
  fault_detail::slot_table(&count);
  std::vector<Seen> seen(count);
  std::unique_lock<std::mutex> lock(w.mutex);
  while (!w.stop) {
    w.wake.wait_for(lock, kInterval, [&w] { return w.stop; });
    if (w.stop) break;
    lock.unlock();
    look(seen);
    lock.lock();
  }
}

// A fork()ed child inherits the parent's count of graphs and a handle of a thread that does not
// run in it. The handle is let go without being joined or detached (both would touch a thread of
// another process); the child counts its own graphs from zero.
void forget_parents_thread(Watchdog& w) {
  if (w.pid == ::getpid()) return;
  if (w.thread.joinable()) new std::thread(std::move(w.thread));  // leaked on purpose
  w.users = 0;
  w.pid = ::getpid();
}

}  // namespace

StuckCallWatch::StuckCallWatch() : pid_(::getpid()) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  forget_parents_thread(w);
  if (w.users++ > 0) return;
  w.stop = false;
  try {
    w.thread = std::thread(run, std::ref(w));
  } catch (const std::system_error&) {
    // No thread to spare: graphs work as before, and a stuck call stays stuck.
  }
}

StuckCallWatch::~StuckCallWatch() {
  if (pid_ != ::getpid()) return;
  Watchdog& w = watchdog();
  std::thread ending;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (--w.users > 0) return;
    w.stop = true;
    ending = std::move(w.thread);
  }
  w.wake.notify_all();
  // Joined, so that no thread of ours runs once the last graph has closed (the library may then
  // be unloaded).
  if (ending.joinable()) ending.join();
}

}  // namespace datalog::store
