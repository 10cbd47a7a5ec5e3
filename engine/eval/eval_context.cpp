#include "engine/eval/eval_context.h"

#include <chrono>

#include <fmt/format.h>

namespace datalog::eval {

namespace {
// The host is polled (about a microsecond) at most once per kPollEvery of evaluation, and the
// clock read once per kInterruptCheckEvery calls (a call is one row produced or read), so inner
// loops can call check_interrupt per row.
constexpr std::chrono::microseconds kPollEvery{1000};
constexpr std::string_view kSqlPrefix = "sql/";
}  // namespace

Status max_results_exceeded(const Limits& limits) {
  return Status(StatusCode::InvalidArgument,
                fmt::format("Max query results ({}) exceeded. Raise the limit with :max-results in "
                            "the query, datalog_limit('max_results', n) on the connection, or the "
                            "store table's max_results argument (0: none)",
                            limits.max_results));
}

Status max_derived_facts_exceeded(const Limits& limits) {
  return Status(StatusCode::InvalidArgument,
                fmt::format("Max derived facts per iteration ({}) exceeded", limits.max_derived_facts));
}

Status max_iterations_exceeded(const Limits& limits) {
  return Status(StatusCode::InvalidArgument,
                fmt::format("Max iterations ({}) exceeded", limits.max_iterations));
}

Status max_memory_exceeded(const Limits& limits, std::size_t held) {
  return Status(StatusCode::InvalidArgument,
                fmt::format("Query memory limit ({} MiB) exceeded: the query needed {} MiB. Raise the "
                            "limit with datalog_limit('max_memory_mb', n) on the connection, or the "
                            "store table's max_memory_mb argument (0: none)",
                            limits.max_memory_bytes >> 20, held >> 20));
}

std::optional<std::string> sql_function_name(const std::string& name) {
  if (name.size() <= kSqlPrefix.size() || name.compare(0, kSqlPrefix.size(), kSqlPrefix) != 0) {
    return std::nullopt;
  }
  return name.substr(kSqlPrefix.size());
}

// The query's buffers may not take the thread past where it stood plus the budget: one growth
// step of a relation is refused there, instead of overshooting the budget by its size.
EvalContext::EvalContext(GraphReader& graph, TimeView view, Limits limits)
    : graph_(graph), view_(view), limits_(limits), memory_at_start_(QueryMemory::usage()) {
  ceiling_before_ = ceiling_ = QueryMemory::ceiling();
  if (limits_.max_memory_bytes > 0) {
    const auto budget = static_cast<std::size_t>(limits_.max_memory_bytes);
    if (budget < SIZE_MAX - memory_at_start_ && memory_at_start_ + budget < ceiling_) {
      ceiling_ = memory_at_start_ + budget;
      QueryMemory::set_ceiling(ceiling_);
      QueryMemory::set_budget(budget);
    }
  }
}

EvalContext::~EvalContext() {
  // Queries end in any order (streaming cursors): restore only what is still this query's.
  if (QueryMemory::ceiling() == ceiling_) QueryMemory::set_ceiling(ceiling_before_);
}

Status EvalContext::poll_interrupt() {
  DATALOG_RETURN_IF_ERROR(check_memory());
  if (!interrupted_) return Status::OK();
  const auto now = std::chrono::steady_clock::now();
  if (now - last_poll_ < kPollEvery) return Status::OK();
  last_poll_ = now;
  if (interrupted_()) return Status(StatusCode::Interrupted, "interrupted");
  return Status::OK();
}

Status EvalContext::as_entity_uncached(const Value& v, std::optional<EntityId>* out) {
  switch (v.kind()) {
    case ValueKind::Ref: *out = v.as_ref(); return Status::OK();
    case ValueKind::Integer: *out = v.as_integer(); return Status::OK();
    case ValueKind::Keyword:
    case ValueKind::Uuid: return graph_.entity_of(v, out);
    default:
      out->reset();
      return Status::OK();
  }
}

Status EvalContext::as_entity(const Value& v, std::optional<EntityId>* out) {
  if (!v.is(ValueKind::Keyword) && !v.is(ValueKind::Uuid)) return as_entity_uncached(v, out);
  auto it = entity_cache_.find(v);
  if (it != entity_cache_.end()) {
    *out = it->second;
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(as_entity_uncached(v, out));
  entity_cache_.emplace(v, *out);
  return Status::OK();
}

Status EvalContext::as_attribute(const Value& v, std::optional<EntityId>* out) {
  if (!v.is(ValueKind::Keyword)) {
    out->reset();
    return Status::OK();
  }
  return as_entity(v, out);
}

Status EvalContext::keyword_of(EntityId id, std::optional<Value>* out) {
  auto it = ident_cache_.find(id);
  if (it == ident_cache_.end()) {
    std::optional<Value> name;
    DATALOG_RETURN_IF_ERROR(graph_.ident_of(id, &name));
    it = ident_cache_.emplace(id, std::move(name)).first;
  }
  *out = it->second;
  return Status::OK();
}

Status EvalContext::attribute_keyword(EntityId id, Value* out) {
  std::optional<Value> name;
  DATALOG_RETURN_IF_ERROR(keyword_of(id, &name));
  if (!name || !name->is(ValueKind::Keyword)) {
    return Status(StatusCode::Corrupt, fmt::format("attribute {} has no keyword", id));
  }
  *out = *name;
  return Status::OK();
}

Value EvalContext::join_key(const Value& v) {
  if (v.is(ValueKind::Keyword) || v.is(ValueKind::Uuid)) {
    std::optional<EntityId> id;
    if (as_entity(v, &id).ok()) return join_key(v, id);
  }
  return v;
}

Value EvalContext::join_key(const Value& v, const std::optional<EntityId>& entity) {
  const bool ident = v.is(ValueKind::Keyword) || v.is(ValueKind::Uuid);
  return ident && entity ? Value::ref(*entity) : v;
}

}  // namespace datalog::eval
