#include "history_model.h"

#include <map>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace datalog::store::testing {

namespace {

bool same_fact(const Datom& x, EntityId e, EntityId a, const Value& v) {
  return x.e == e && x.a == a && x.v == v;
}

void expect(bool condition, const char* what) {
  if (!condition) throw std::logic_error(what);  // a bug in the test driver, not the store
}

}  // namespace

void HistoryModel::begin(std::uint64_t tx, std::int64_t tx_time_ms) {
  expect(!open_, "begin inside a transaction");
  expect(tx == last_tx_ + 1, "transaction counters are consecutive");
  open_ = true;
  tx_ = tx;
  tx_time_ms_ = tx_time_ms;
  pending_.clear();
  marks_.clear();
}

void HistoryModel::assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                               std::int64_t valid_to) {
  expect(open_, "assert outside a transaction");
  bool after_retraction = false;
  for (const Operation& op : pending_) {
    if (op.datom.op == Op::Retract && op.stored && same_fact(op.datom, e, a, v)) {
      after_retraction = true;
    }
  }
  const Op op = after_retraction ? Op::Reassert : Op::Assert;
  pending_.push_back({Datom{e, a, v, tx_, op, valid_from, valid_to}, next_seq_++});
}

void HistoryModel::retract_fact(EntityId e, EntityId a, const Value& v) {
  expect(open_, "retract outside a transaction");
  const Operation* latest = nullptr;
  for (const std::vector<Operation>* ops : {&committed_, &pending_}) {
    for (const Operation& op : *ops) {
      if (same_fact(op.datom, e, a, v)) latest = &op;
    }
  }
  const bool stored = latest && latest->datom.op != Op::Retract;
  pending_.push_back(
      {Datom{e, a, v, tx_, Op::Retract, tx_time_ms_, kForever}, next_seq_++, stored});
}

void HistoryModel::savepoint(int level) {
  expect(open_ && level == savepoint_depth(), "savepoint levels open one at a time");
  marks_.push_back(pending_.size());
}

void HistoryModel::release(int level) {
  expect(open_ && level < savepoint_depth(), "release of an open level");
  marks_.resize(static_cast<std::size_t>(level));
}

void HistoryModel::rollback_to(int level) {
  expect(open_ && level < savepoint_depth(), "rollback to an open level");
  pending_.resize(marks_[static_cast<std::size_t>(level)]);
  marks_.resize(static_cast<std::size_t>(level) + 1);
}

void HistoryModel::commit() {
  expect(open_, "commit outside a transaction");
  open_ = false;
  if (pending_.empty()) return;  // nothing written: no counter consumed
  std::vector<Datom>& log = logs_[tx_];
  for (Operation& op : pending_) {
    if (op.stored) log.push_back(op.datom);
    committed_.push_back(std::move(op));
  }
  tx_times_[tx_] = tx_time_ms_;
  last_tx_ = tx_;
  pending_.clear();
}

void HistoryModel::abort() {
  open_ = false;
  pending_.clear();
  marks_.clear();
}

std::vector<Datom> HistoryModel::visible(const TimeView& view, bool with_pending) const {
  using Fact = std::tuple<EntityId, EntityId, Value>;
  std::map<Fact, std::vector<const Operation*>> facts;  // each in the order made
  auto take = [&](const std::vector<Operation>& ops) {
    for (const Operation& op : ops) {
      if (op.datom.tx <= view.as_of) facts[{op.datom.e, op.datom.a, op.datom.v}].push_back(&op);
    }
  };
  take(committed_);
  if (with_pending) take(pending_);

  std::vector<Datom> out;
  for (const auto& [fact, ops] : facts) {
    const Operation* last_retraction = nullptr;
    for (const Operation* op : ops) {
      if (op->datom.op == Op::Retract) last_retraction = op;
    }
    // Surviving assertions; within one transaction the latest per valid_from.
    std::map<std::pair<std::uint64_t, std::int64_t>, const Operation*> by_tx_and_start;
    for (const Operation* op : ops) {
      if (op->datom.op == Op::Retract) continue;
      if (last_retraction && op->seq < last_retraction->seq) continue;
      by_tx_and_start[{op->datom.tx, op->datom.valid_from}] = op;  // later ones replace
    }
    // One row per valid-time window: its latest assertion.
    std::map<std::pair<std::int64_t, std::int64_t>, const Operation*> by_window;
    for (const auto& [key, op] : by_tx_and_start) {
      const Operation*& slot = by_window[{op->datom.valid_from, op->datom.valid_to}];
      if (!slot || slot->seq < op->seq) slot = op;
    }
    for (const auto& [window, op] : by_window) {
      const bool valid_now =
          op->datom.valid_from <= view.valid_at && view.valid_at < op->datom.valid_to;
      if (view.any_valid_time || valid_now) out.push_back(op->datom);
    }
  }
  return out;
}

}  // namespace datalog::store::testing
