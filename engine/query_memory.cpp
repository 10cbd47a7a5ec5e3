#include "engine/query_memory.h"

#include <cstdint>
#include <new>

namespace datalog {

namespace {

struct Counters {
  std::size_t buffers = 0;
  std::size_t text = 0;
  std::size_t ceiling = SIZE_MAX;
  std::size_t budget = 0;
  std::optional<QueryMemory::Refusal> refusal;
};

thread_local Counters t_counters;

std::size_t less(std::size_t from, std::size_t bytes) { return bytes < from ? from - bytes : 0; }

}  // namespace

void QueryMemory::reserve(std::size_t bytes) {
  Counters& c = t_counters;
  const std::size_t held = c.buffers + c.text;
  if (c.ceiling != SIZE_MAX && (bytes > c.ceiling || held > c.ceiling - bytes)) {
    c.refusal = Refusal{c.budget, held + bytes};
    throw std::bad_alloc();
  }
  c.buffers += bytes;
}

// A buffer allocated on another thread may be freed on this one: never below zero.
void QueryMemory::on_free(std::size_t bytes) noexcept { t_counters.buffers = less(t_counters.buffers, bytes); }
void QueryMemory::on_text(std::size_t bytes) noexcept { t_counters.text += bytes; }
std::size_t QueryMemory::usage() noexcept { return t_counters.buffers + t_counters.text; }
std::size_t QueryMemory::ceiling() noexcept { return t_counters.ceiling; }
void QueryMemory::set_ceiling(std::size_t bytes) noexcept { t_counters.ceiling = bytes; }
void QueryMemory::set_budget(std::size_t bytes) noexcept { t_counters.budget = bytes; }

std::optional<QueryMemory::Refusal> QueryMemory::take_refusal() noexcept {
  std::optional<Refusal> r = t_counters.refusal;
  t_counters.refusal.reset();
  return r;
}

}  // namespace datalog
