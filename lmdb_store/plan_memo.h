// lmdb_store/plan_memo.h: scan plans already made, by the filter's shape and attribute.
//
// A plan rests only on the statistics of one committed state (scan_plan.h), so a reader's plans
// hold for every snapshot of that state: each thread keeps the plans of the last state it read,
// and a query repeated on new snapshots (a named query table called once per row of a join,
// say) plans once. A write transaction's statistics move as it writes: it keeps its own memo.
// Thread safety: a memo belongs to one thread (of_thread) or one transaction.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/value.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::store {

class PlanMemo {
 public:
  const ScanPlan* find(std::uint8_t shape, EntityId a) const {
    for (std::size_t i = 0; i < used_; ++i) {
      if (entries_[i].shape == shape && entries_[i].a == a) return &entries_[i].plan;
    }
    return nullptr;
  }
  void add(std::uint8_t shape, EntityId a, const ScanPlan& plan) {
    entries_[next_] = Entry{shape, a, plan};  // the oldest goes when all are used
    next_ = (next_ + 1) % entries_.size();
    if (used_ < entries_.size()) ++used_;
  }

  // This thread's memo for committed state `state` (mdb_txn_id) of the graph whose read cache
  // has id `cache`; emptied when the thread last planned for another state or graph.
  static PlanMemo& of_thread(std::uint64_t cache, std::uint64_t state);

 private:
  struct Entry {
    std::uint8_t shape = 0;
    EntityId a = 0;
    ScanPlan plan;
  };
  std::array<Entry, 8> entries_;
  std::size_t used_ = 0, next_ = 0;
};

inline PlanMemo& PlanMemo::of_thread(std::uint64_t cache, std::uint64_t state) {
  struct ThreadMemo {
    std::uint64_t cache = 0, state = 0;
    PlanMemo memo;
  };
  thread_local ThreadMemo mine;
  if (mine.cache != cache || mine.state != state) mine = ThreadMemo{cache, state, PlanMemo{}};
  return mine.memo;
}

}  // namespace datalog::store
