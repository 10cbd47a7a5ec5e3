// engine/eval/eval_context.h: what one query evaluation carries: the graph snapshot and time
// view, limits, cancellation, and caches of ident lookups.
//
// Entity identity (LANGUAGE.md §3, header rule 4): an entity is a Ref(id). A keyword or uuid
// that names an entity (an ident) stands for it wherever an entity is expected, and joins
// compare them as that entity (join_key). Integers in entity position are entity ids.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <optional>
#include <string>
#include <unordered_map>

#include "engine/datom.h"
#include "engine/functions/aggregates.h"
#include "engine/query_memory.h"
#include "engine/functions/regex.h"
#include "engine/status.h"
#include "engine/storage.h"
#include "engine/value.h"
#include "engine/value_hash.h"

namespace datalog::ast {
struct Expr;
}
namespace datalog::functions {
struct Builtin;
}

namespace datalog::eval {

struct Limits {
  std::int64_t max_results = 1'000'000;
  std::int64_t max_derived_facts = 1'000'000;
  std::int64_t max_iterations = 100'000;  // semi-naive rounds; a chain of n needs n
  // What the evaluation may hold (engine/query_memory.h); 0: no limit.
  std::int64_t max_memory_bytes = std::int64_t{2} << 30;
};

// The errors of exceeding each limit, in Minigraf's words (LANGUAGE.md §17).
Status max_results_exceeded(const Limits& limits);
Status max_derived_facts_exceeded(const Limits& limits);
Status max_iterations_exceeded(const Limits& limits);
Status max_memory_exceeded(const Limits& limits, std::size_t held);

// The functions of the host (the SQL functions of the connection, §16), for names the engine
// does not know or that are written with the prefix `sql/`. Each call says *found = false when
// the host has no such function; errors are query errors.
class ExternalFunctions {
 public:
  virtual ~ExternalFunctions() = default;
  // A scalar function in an expression clause.
  virtual Status call(GraphReader& graph, const std::string& name, const std::vector<Value>& args,
                      bool* found, std::optional<Value>* result) = 0;
  // An accumulator for an aggregate function of one argument (nil values are not passed to it).
  virtual Status make_aggregate(GraphReader& graph, const std::string& name, bool* found,
                                std::unique_ptr<functions::Accumulator>* out) = 0;
  // The running values of an aggregate used as a window function: out[i] aggregates
  // args[0..i] (the partition, in window order; nil included).
  virtual Status window(GraphReader& graph, const std::string& name, std::span<const Value> args,
                        bool* found, std::vector<Value>* out) = 0;
  // Whether the body of stored rule `rule` may call function `name` with `arity` arguments
  // (host_calls.h); an error says why not. Asked before the query runs.
  virtual Status check_rule_call(const std::string& rule, const std::string& name, std::size_t arity) = 0;
};

// `sql/upper` names the SQL function upper even where a built-in has the same name; nullopt
// for a name without the prefix.
std::optional<std::string> sql_function_name(const std::string& name);

class EvalContext {
 public:
  EvalContext(GraphReader& graph, TimeView view, Limits limits);
  ~EvalContext();
  EvalContext(const EvalContext&) = delete;
  EvalContext& operator=(const EvalContext&) = delete;

  GraphReader& graph() { return graph_; }
  const TimeView& view() const { return view_; }
  const Limits& limits() const { return limits_; }

  void set_interrupt(std::function<bool()> check) { interrupted_ = std::move(check); }
  // Returns Interrupted when the caller asked to stop, or the memory limit's error when the
  // query holds more than its budget; cheap enough for inner loops. Both are looked at once
  // every kInterruptCheckEvery calls: the memory counters are thread-local in a shared library,
  // a call to reach them, and a relation's buffers are refused at their allocation anyway
  // (QueryMemory::reserve); a query is checked once more as it ends (check_memory).
  Status check_interrupt() {
    if ((++interrupt_tick_ % kInterruptCheckEvery) != 0) return Status::OK();
    return poll_interrupt();
  }
  // extra: bytes about to be made, counted as if held.
  Status check_memory(std::size_t extra = 0) {
    if (limits_.max_memory_bytes <= 0) return Status::OK();
    const std::size_t now = QueryMemory::usage() + extra;
    const std::size_t held = now > memory_at_start_ ? now - memory_at_start_ : 0;
    if (held <= static_cast<std::size_t>(limits_.max_memory_bytes)) return Status::OK();
    return max_memory_exceeded(limits_, held);
  }

  void set_external_functions(ExternalFunctions* f) { external_ = f; }
  ExternalFunctions* external_functions() const { return external_; }

  // The entity a value stands for in entity position: a Ref, an ident keyword/uuid, an integer.
  Status as_entity(const Value& v, std::optional<EntityId>* out);
  // The same without this query's cache of idents, for a caller that asks once per value (a
  // closure walk), where the cache would only grow.
  Status as_entity_uncached(const Value& v, std::optional<EntityId>* out);
  // The attribute a keyword names (nullopt when no datom ever used it).
  Status as_attribute(const Value& v, std::optional<EntityId>* out);
  // The keyword of attribute id (for binding a variable in attribute position).
  Status attribute_keyword(EntityId id, Value* out);
  // The value joins compare: an ident keyword/uuid becomes the Ref it names.
  Value join_key(const Value& v);
  // The join key of v, given the entity v stands for (as_entity's answer).
  static Value join_key(const Value& v, const std::optional<EntityId>& entity);
  // Regex patterns compiled once per query.
  functions::RegexCache& regexes() { return regexes_; }
  // The ident keyword of an entity, if it has one.
  Status keyword_of(EntityId id, std::optional<Value>* out);

  // How an expression's operator is called, worked out on the first call of each expression
  // node of the query (expression_eval.cpp), not once per row.
  struct Callee {
    enum class Kind : std::uint8_t { Sql, Regex, Builtin, External } kind = Kind::External;
    const functions::Builtin* builtin = nullptr;
    std::string name;  // the function's name for Sql (without "sql/") and External
    std::string op;    // what it was resolved from: a node reused for another call re-resolves
    std::size_t arity = 0;
  };
  std::unordered_map<const ast::Expr*, Callee>& callees() { return callees_; }

 private:
  GraphReader& graph_;
  TimeView view_;
  Limits limits_;
  std::size_t memory_at_start_;
  std::size_t ceiling_before_ = 0, ceiling_ = 0;  // QueryMemory's ceiling around this query
  std::function<bool()> interrupted_;
  ExternalFunctions* external_ = nullptr;
  // Memory and the clock are read once every kInterruptCheckEvery calls of check_interrupt.
  static constexpr std::uint32_t kInterruptCheckEvery = 128;
  Status poll_interrupt();
  std::uint32_t interrupt_tick_ = 0;
  std::chrono::steady_clock::time_point last_poll_ = std::chrono::steady_clock::now();
  functions::RegexCache regexes_;
  std::unordered_map<Value, std::optional<EntityId>, ValueHash> entity_cache_;
  std::unordered_map<EntityId, std::optional<Value>> ident_cache_;
  std::unordered_map<const ast::Expr*, Callee> callees_;
};

}  // namespace datalog::eval
