// Random scripts evaluated on a fixed graph: the rules they define and the queries they ask,
// within small limits and a deadline, so the fuzzer looks for crashes, not for slow queries.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "engine/analyzer.h"
#include "engine/eval/query_runner.h"
#include "engine/parser.h"
#include "engine/script_runner.h"
#include "fuzz/fuzz_support.h"
#include "lmdb_store/graph_access.h"
#include "lmdb_store/read_view.h"

namespace {

using namespace datalog;

// People who know each other, with names, ages, refs and valid times.
std::shared_ptr<store::GraphEnv> fixed_graph() {
  auto env = fuzz::private_graph();
  std::unique_ptr<store::WriteTxn> w;
  if (!store::WriteTxn::begin(env, fuzz::kTimeout, &w).ok()) ::abort();
  EntityId name = 0, age = 0, knows = 0;
  w->resolve_ident(Value::keyword(":name"), &name);
  w->resolve_ident(Value::keyword(":age"), &age);
  w->resolve_ident(Value::keyword(":knows"), &knows);
  for (EntityId e = 1; e <= 40; ++e) {
    w->assert_fact(e, name, Value::string("p" + std::to_string(e)), 0, store::kForever);
    w->assert_fact(e, age, Value::integer(static_cast<std::int64_t>(e % 50)), 0, store::kForever);
    w->assert_fact(e, knows, Value::ref(e % 40 + 1), 0, e % 3 == 0 ? 1'000'000 : store::kForever);
  }
  if (!w->commit().ok()) ::abort();
  return env;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::shared_ptr<store::GraphEnv> env = fixed_graph();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<ast::Command> commands;
  if (!parse_script(text, &commands).ok()) return 0;
  std::vector<ast::Rule> rules;
  std::vector<const ast::Query*> queries;
  for (const auto& command : commands) {
    if (!check_command(command).ok()) return 0;
    if (const auto* rule = std::get_if<ast::Rule>(&command)) rules.push_back(*rule);
    if (const auto* query = std::get_if<ast::QueryCommand>(&command)) queries.push_back(&query->query);
  }
  if (!check_rule_set(rules).ok()) return 0;
  std::unique_ptr<store::ReadSnapshot> snapshot;
  if (!store::ReadSnapshot::begin(env, &snapshot).ok()) return 0;
  store::GraphAccess graph(*snapshot);
  for (const ast::Query* query : queries) {
    if (!check_query_with_rules(*query, rules).ok()) continue;
    eval::RunOptions options;
    options.limits.max_results = 1'000;
    options.limits.max_derived_facts = 1'000;
    options.limits.max_iterations = 100;
    options.limits.max_memory_bytes = std::int64_t{64} << 20;
    options.now_ms = 1'000;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
    options.interrupted = [deadline] { return std::chrono::steady_clock::now() > deadline; };
    eval::QueryResult result;
    (void)eval::run_query(graph, *query, rules, {}, options, &result);
  }
  return 0;
}
