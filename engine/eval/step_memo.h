// engine/eval/step_memo.h: the join planner's choices for one query, kept from call to call.
//
// A named query table (or a datalog_q text) runs the same body at every call, with other slot
// values. At each step the planner (join_planner.h) reads only: the clauses done, the rows built
// so far and their variables, the graph's statistics, and of the slot values their kinds and
// whether an ident names an entity. The variables follow from the clauses done and those the
// body starts with (:in bindings, values SQL pushes down). With all of those equal it makes the
// same choice. So the choices are kept by step (clauses done, rows) for one source of estimates
// and one signature (the starting variables, the slot values' kinds and idents); a call with
// another source or signature forgets them. A query whose comparisons hold slots reads their
// values while planning (value_ranges.h) and is not memoised, nor a body that calls rules (their
// derived tuples count), nor a traced one (datalog_explain shows every estimate).
// Thread safety: one memo per query of one connection, used under that connection's calls. A
// call may begin inside another (a SQL function the query calls runs the same query): each
// begin() starts a new call, and the outer call's finds and adds are then ignored.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/eval/join_planner.h"
#include "engine/storage.h"

namespace datalog::eval {

class StepMemo {
 public:
  // Starts a call: *call names it for find() and add(). False when nothing may be kept for it
  // (an estimate source that moves).
  bool begin(const EstimateSource& source, std::string signature, std::uint64_t* call) {
    *call = ++calls_;
    if (source.state == 0) return false;
    if (!(source == source_) || signature != signature_) {
      source_ = source;
      signature_ = std::move(signature);
      steps_.clear();
    }
    return true;
  }

  // The step chosen before with these clauses done (a bit each) over this many rows, or null
  // (also when call is not the last one begun). Its value ranges are not kept: they hold the
  // call's values (JoinPlanner::value_ranges_for).
  const PlanStep* find(std::uint64_t call, std::uint64_t done, std::size_t rows) const {
    if (call != calls_) return nullptr;
    for (const Entry& e : steps_) {
      if (e.done == done && e.rows == rows) return &e.step;
    }
    return nullptr;
  }
  void add(std::uint64_t call, std::uint64_t done, std::size_t rows, PlanStep step) {
    if (call != calls_) return;
    if (steps_.size() >= kMaxSteps) steps_.clear();  // row counts that vary widely: start over
    step.v_ranges.clear();
    steps_.push_back(Entry{done, rows, std::move(step)});
  }

  // Bodies of more clauses than this have no memo (the done set is a 64-bit mask).
  static constexpr std::size_t kMaxClauses = 64;

 private:
  static constexpr std::size_t kMaxSteps = 64;
  struct Entry {
    std::uint64_t done = 0;
    std::size_t rows = 0;
    PlanStep step;
  };
  EstimateSource source_;
  std::string signature_;
  std::uint64_t calls_ = 0;
  std::vector<Entry> steps_;
};

}  // namespace datalog::eval
