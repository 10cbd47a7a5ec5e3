#include "lmdb_store/stuck_call_watchdog.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
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
// How long the thread outlives the last open graph. An application that opens and closes a
// database per request would otherwise start and join a thread on every open (a tenth of the
// time to open a graph, with the TLB flushes a second thread brings to every unmap).
constexpr auto kLinger = std::chrono::seconds(5);

struct Watchdog {
  std::mutex mutex;  // guards users, running, pid, duties; held while duties run
  std::condition_variable wake;
  int users = 0;
  bool running = false;  // a watchdog thread of this process is alive
  pid_t pid = 0;         // the process the count belongs to
  std::vector<std::pair<const StuckCallWatch*, std::function<void()>>> duties;
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
  for (;;) {
    if (w.users == 0) {
      if (!w.wake.wait_for(lock, kLinger, [&w] { return w.users > 0; })) break;
      std::fill(seen.begin(), seen.end(), Seen{});
    }
    w.wake.wait_for(lock, kInterval);
    if (w.users == 0) continue;
    lock.unlock();
    look(seen);
    lock.lock();
    for (const auto& [watch, duty] : w.duties) duty();
  }
  w.running = false;
}

// A fork()ed child inherits the parent's count of graphs and its flag of a running thread, a
// thread that does not run in the child; the child counts its own graphs from zero.
void forget_parents_thread(Watchdog& w) {
  if (w.pid == ::getpid()) return;
  w.users = 0;
  w.running = false;
  w.pid = ::getpid();
  w.duties.clear();  // the parent's graphs
}

}  // namespace

StuckCallWatch::StuckCallWatch() : pid_(::getpid()) {
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  forget_parents_thread(w);
  if (w.users++ > 0) return;
  if (w.running) {
    w.wake.notify_all();  // a lingering thread watches again
    return;
  }
  try {
    // Detached: it ends by itself once no graph has been open for kLinger. The library is
    // linked with -z nodelete (extension/CMakeLists.txt), so its code outlives a dlclose.
    std::thread(run, std::ref(w)).detach();
    w.running = true;
  } catch (const std::system_error&) {
    // No thread to spare: graphs work as before, and a stuck call stays stuck.
  }
}

StuckCallWatch::~StuckCallWatch() {
  if (pid_ != ::getpid()) return;
  stop_duty();
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  --w.users;
}

bool StuckCallWatch::start_duty(std::function<void()> duty) {
  if (pid_ != ::getpid()) return false;
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.running) return false;
  w.duties.emplace_back(this, std::move(duty));
  return true;
}

void StuckCallWatch::stop_duty() {
  if (pid_ != ::getpid()) return;
  Watchdog& w = watchdog();
  std::lock_guard<std::mutex> lock(w.mutex);  // duties run under it: none is running now
  std::erase_if(w.duties, [this](const auto& d) { return d.first == this; });
}

}  // namespace datalog::store
