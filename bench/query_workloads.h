// bench/query_workloads.h: the read workloads of WORKLOADS.md, each with its Datalog query and
// the equivalent SQL on the plain-SQLite baseline.
//
// Query texts may hold `{N/2}` and `{9N/10}`, replaced by the size before running. `args` (the
// prepared group) are bound as datalog_q arguments, as the named table's hidden slot columns and
// as the baseline's ?1. A workload with a `key` looks up a different, random key on every call
// instead (the same sequence on every path): its query's only slot, the baseline's ?1.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fixtures.h"

namespace bench {

struct FixtureSpec {
  std::string id;                             // shared by workloads that read the same data
  std::function<Fixture(long long n)> build;  // n is the workload's size
};

// What a keyed workload draws per call, from [0, key_range(n)).
enum class KeyKind {
  none,
  entity,  // ours: the ident ':e{k}', the baseline: the integer k
  value,   // both: the integer k
};

struct QueryWorkload {
  std::string group;     // "query", "negation", ...
  std::string name;      // "point_entity", "not_selectivity/25pct", ...
  FixtureSpec fixture;
  std::vector<long long> sizes;        // the full run's sizes (Minigraf's)
  std::vector<long long> quick_sizes;  // --quick
  std::string datalog;
  std::string sql;
  std::function<std::vector<long long>(long long n)> args;  // empty: no arguments
  std::string note;  // how the workload differs from Minigraf's, if it does
  KeyKind key = KeyKind::none;
  std::function<long long(long long n)> key_range;  // keys are drawn from [0, key_range(n))
};

const std::vector<QueryWorkload>& query_workloads();

// `text` with {N/2} and {9N/10} replaced for size n.
std::string with_size(const std::string& text, long long n);

}  // namespace bench
