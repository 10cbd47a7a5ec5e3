// tests/store/history_model.h: an in-memory model of a graph's history, the oracle of the model
// test. It is written from the rules (LANGUAGE.md §4, §5, §12 and the header of
// lmdb_store/visibility.h), not from the store's code, and it keeps every operation as it was
// made, in order, rather than index records:
//
//  - all operations of one transaction share its counter; a transaction left with no operation
//    (nothing written, everything rolled back, or aborted) consumes no counter;
//  - savepoints: rollback_to(level) forgets the operations made since savepoint(level) and keeps
//    the level open; release(level) keeps them;
//  - visibility of one fact (e, a, v) in a view: the as-of cut first; then, with R the latest
//    retraction left, an assertion survives iff it was made after R (a later transaction, or
//    later in R's own transaction: operations within a transaction apply in sequence);
//  - within one transaction, asserting a fact again with the same valid_from replaces the
//    earlier assertion's valid_to (datom_layout.h: valid_from is part of the record's key,
//    valid_to its data);
//  - one row per valid-time window (valid_from, valid_to): its latest assertion;
//  - then valid_from <= valid_at < valid_to, unless any valid time is asked.
//  - a retraction of a fact whose latest operation is a retraction (or that has none) is not
//    stored (it changes no view): it is left out of the log, but still consumes the counter and
//    still counts as the latest retraction when visibility is decided, so the model test checks
//    that leaving it out changes nothing;
// Visible datoms carry the tx of their assertion and op Reassert when a stored retraction of the
// same fact preceded them in their own transaction, Assert otherwise.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/visibility.h"

namespace datalog::store::testing {

class HistoryModel {
 public:
  // The transaction being written. tx must be last_tx() + 1.
  void begin(std::uint64_t tx, std::int64_t tx_time_ms);
  void assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                   std::int64_t valid_to);
  void retract_fact(EntityId e, EntityId a, const Value& v);
  void savepoint(int level);  // level == number of open savepoints
  void release(int level);
  void rollback_to(int level);
  void commit();
  void abort();

  bool in_transaction() const { return open_; }
  int savepoint_depth() const { return static_cast<int>(marks_.size()); }
  std::uint64_t last_tx() const { return last_tx_; }
  std::size_t pending_operations() const { return pending_.size(); }

  // The datoms visible in view: the committed history, plus the open transaction's operations
  // when with_pending (what the writer itself reads).
  std::vector<Datom> visible(const TimeView& view, bool with_pending = false) const;

  // A committed transaction's operations in the order they were made, as datoms (a retraction
  // is valid from its transaction's time to forever).
  const std::vector<Datom>& log(std::uint64_t tx) const { return logs_.at(tx); }
  std::int64_t tx_time(std::uint64_t tx) const { return tx_times_.at(tx); }

 private:
  struct Operation {
    Datom datom;        // op: Retract, Assert or Reassert as the model decides
    std::uint64_t seq;  // order of the operation in the whole history
    bool stored = true;  // false: a redundant retraction, absent from the log and the indexes
  };

  std::vector<Operation> committed_;
  std::vector<Operation> pending_;
  std::vector<std::size_t> marks_;  // pending_.size() when each open savepoint began
  std::map<std::uint64_t, std::vector<Datom>> logs_;
  std::map<std::uint64_t, std::int64_t> tx_times_;
  std::uint64_t last_tx_ = 0;
  std::uint64_t tx_ = 0;
  std::int64_t tx_time_ms_ = 0;
  std::uint64_t next_seq_ = 0;
  bool open_ = false;
};

}  // namespace datalog::store::testing
