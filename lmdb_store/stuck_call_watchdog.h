// lmdb_store/stuck_call_watchdog.h: LMDB calls that never return on a damaged page.
//
// Some damage sends LMDB into a loop rather than a fault: a page header whose key count
// underflows makes its binary search run forever (found by fuzz/fuzz_graph_open.cpp, inside
// mdb_get). Neither sqlite3_interrupt nor a progress handler can reach a thread inside LMDB.
//
// While any graph is open, a watchdog thread looks at the guarded calls in flight
// (page_fault_guard.h) four times a second. A call that has burned kStuckCallCpu of its thread's
// CPU time without returning is stuck: no LMDB call that reads pages needs that much. The
// watchdog queues SIGBUS to its thread, whose handler leaves the call as it leaves a fault, so the
// call returns kPageFault and the index is rebuilt from the log. CPU time, not wall time: a
// thread that waits for the disk or is descheduled is never taken for stuck. Commits and drops,
// which may rightly write or free gigabytes, are not watched. The thread lingers a few seconds
// after the last graph closes (a process that opens a graph per request reuses it) and then ends.
// The same thread runs the open graphs' duties at each look (StuckCallWatch::start_duty).
#pragma once

#include <chrono>
#include <functional>

namespace datalog::store {

inline constexpr std::chrono::milliseconds kStuckCallCpu{2000};

// Keeps the watchdog watching while it lives (one per open graph). A graph may also give the
// watchdog a duty, run on its thread after each look: short, and never waiting for a lock the
// graph's own threads hold for long (GraphEnv::sweep_parked_reads).
class StuckCallWatch {
 public:
  StuckCallWatch();
  ~StuckCallWatch();
  StuckCallWatch(const StuckCallWatch&) = delete;
  StuckCallWatch& operator=(const StuckCallWatch&) = delete;

  // False when no watchdog thread runs (none could be started): the duty will not run.
  bool start_duty(std::function<void()> duty);
  // Once it returns, the duty never runs again (nor is it running).
  void stop_duty();

 private:
  int pid_;  // a watch inherited across fork() counts in its parent only
};

}  // namespace datalog::store
