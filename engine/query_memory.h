// engine/query_memory.h: how much memory a query's evaluation holds, for its memory budget
// (eval::Limits::max_memory_bytes).
//
// What counts, per thread (a query evaluates on its caller's thread): the evaluator's buffers in
// use (LargeBufferAllocator: relations, index matches, window columns), as they are allocated
// and freed, plus the bytes of every text, keyword or bytes value a function call made (kept or
// not: an upper bound of what such values hold). A query measures from where usage stood when it
// began (EvalContext), so a query run from inside another counts only its own.
//
// Two ways a query stops at its budget: EvalContext::check_memory (called per row produced and
// per text made) returns the limit's error; and a buffer that would take the thread past the
// ceiling its running queries set is refused (std::bad_alloc, remembered so that the SQLite glue
// reports the same error rather than "out of memory"), so one growth step cannot overshoot.
// Thread safety: per thread by design (thread-local counters).
#pragma once

#include <cstddef>
#include <optional>

namespace datalog {

class QueryMemory {
 public:
  // Before a buffer of bytes is allocated: throws std::bad_alloc past the ceiling.
  static void reserve(std::size_t bytes);
  static void on_free(std::size_t bytes) noexcept;
  static void on_text(std::size_t bytes) noexcept;
  // Bytes held by this thread's evaluations (buffers in use plus text made).
  static std::size_t usage() noexcept;

  // The most the thread's buffers and text may reach (SIZE_MAX: none).
  static std::size_t ceiling() noexcept;
  static void set_ceiling(std::size_t bytes) noexcept;
  // The budget whose ceiling refused a buffer since the last call, if one did (and forgets it).
  struct Refusal {
    std::size_t budget = 0, held = 0;
  };
  static std::optional<Refusal> take_refusal() noexcept;
  // The budget to name when the ceiling refuses (set with the ceiling).
  static void set_budget(std::size_t bytes) noexcept;
};

}  // namespace datalog
