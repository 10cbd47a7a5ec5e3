// StepMemo (engine/eval/step_memo.h): a query run again with a memo plans only its first call,
// answers every call as a run without one does, and plans again when the graph's state or what
// the planner reads of the slot values changes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/eval/query_runner.h"
#include "engine/script_runner.h"
#include "people_graph.h"

namespace datalog::eval {
namespace {

// The people graph, with a committed state to name and a count of the estimates asked for.
class CountingGraph : public PeopleGraph {
 public:
  double estimate(const DatomFilter& f) override {
    ++estimates;
    return PeopleGraph::estimate(f);
  }
  EstimateSource estimate_source() const override { return source; }

  int estimates = 0;
  EstimateSource source{1, 7};
};

// The rows of query with these slots, sorted, each as its values' EDN joined by spaces.
std::vector<std::string> rows_of(CountingGraph& graph, const ast::Query& query,
                                 const std::map<std::string, Value>& slots, StepMemo* memo) {
  QueryInputs inputs;
  inputs.slots = slots;
  RunOptions options;
  options.now_ms = 1;
  options.step_memo = memo;
  QueryResult result;
  const Status st = run_query(graph, query, {}, inputs, options, &result);
  INFO(st.message());
  REQUIRE(st.ok());
  std::vector<std::string> out;
  for (RowView row : result.rows) {
    std::string text;
    for (const Value& v : row) text += (text.empty() ? "" : " ") + v.to_edn();
    out.push_back(text);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ast::Query parsed(const std::string& text) {
  ast::Query q;
  const Status st = parse_query(text, &q);
  INFO(st.message());
  REQUIRE(st.ok());
  return q;
}

const std::string kFriendsOfFriends =
    "(query [:find ?n ?a :where [$p :person/friend ?f] [?f :person/friend ?g] [?g :person/name ?n]"
    " [?g :person/age ?a] [(> ?a 18)]])";

}  // namespace

TEST_CASE("a memo plans a query's first call only, and every call answers as without one",
          "[step_memo]") {
  // The evaluation itself asks for an estimate or two (to reserve room); planning asks for many.
  CountingGraph graph;
  graph.add(4, CountingGraph::kFriend, Value::ref(1));  // 4 -> alice -> bob
  const ast::Query q = parsed(kFriendsOfFriends);
  const std::map<std::string, Value> alice{{"p", Value::ref(1)}}, dave{{"p", Value::integer(4)}};
  const std::vector<std::string> of_alice{"\"carol\" 41"}, of_dave{"\"bob\" 25"};
  int before = 0;
  const auto estimates_since = [&] {
    const int n = graph.estimates - before;
    before = graph.estimates;
    return n;
  };

  CHECK(rows_of(graph, q, alice, nullptr) == of_alice);
  const int unplanned = estimates_since();  // without a memo: planned
  StepMemo memo;
  CHECK(rows_of(graph, q, alice, &memo) == of_alice);
  CHECK(estimates_since() == unplanned);  // the memo's first call plans
  CHECK(rows_of(graph, q, alice, &memo) == of_alice);
  const int kept = estimates_since();
  CHECK(kept < unplanned - 4);  // the planner asked for none

  // Another entity of the same kind: the same rows at each step, so the same choices.
  CHECK(rows_of(graph, q, {{"p", Value::ref(4)}}, &memo) == of_dave);
  CHECK(estimates_since() == kept);

  // An integer id has another kind: planned once more, then kept too.
  CHECK(rows_of(graph, q, dave, &memo) == of_dave);
  CHECK(estimates_since() > kept);
  CHECK(rows_of(graph, q, dave, &memo) == of_dave);
  CHECK(estimates_since() == kept);
  CHECK(rows_of(graph, q, dave, nullptr) == of_dave);
}

TEST_CASE("a memo forgets its choices when the state or an ident's answer changes", "[step_memo]") {
  CountingGraph graph;
  const ast::Query q =
      parsed("(query [:find ?n :where [$p :person/friend ?f] [?f :person/name ?n]])");
  const std::vector<std::string> carol{"\"carol\""};
  StepMemo memo;
  int before = 0;
  const auto call = [&](const Value& p) {
    before = graph.estimates;
    return rows_of(graph, q, {{"p", p}}, &memo);
  };
  const auto estimates = [&] { return graph.estimates - before; };
  CHECK(call(Value::keyword(":bob")) == carol);
  const int planned = estimates();
  CHECK(call(Value::keyword(":bob")) == carol);
  const int kept = estimates();
  CHECK(kept < planned);

  // An ident that names no entity: the planner reads that (a pattern that cannot match).
  CHECK(call(Value::keyword(":nobody")).empty());
  CHECK(estimates() > kept);
  CHECK(call(Value::keyword(":nobody")).empty());
  CHECK(estimates() <= kept);

  // Another committed state: the statistics may differ.
  CHECK(call(Value::keyword(":bob")) == carol);  // back to the first signature: planned again
  graph.source.state = 8;
  CHECK(call(Value::keyword(":bob")) == carol);
  CHECK(estimates() == planned);
  CHECK(call(Value::keyword(":bob")) == carol);
  CHECK(estimates() == kept);

  // Another index (a rebuilt one numbers its states from the start again).
  graph.source.graph = 2;
  CHECK(call(Value::keyword(":bob")) == carol);
  CHECK(estimates() == planned);

  // Estimates that move (a write transaction's): nothing is kept.
  graph.source = EstimateSource{};
  CHECK(call(Value::keyword(":bob")) == carol);
  CHECK(estimates() == planned);
  CHECK(call(Value::keyword(":bob")) == carol);
  CHECK(estimates() == planned);
}

TEST_CASE("a query whose comparisons hold slots plans every call, with that call's values",
          "[step_memo]") {
  CountingGraph graph;
  const ast::Query q =
      parsed("(query [:find ?n :where [?p :person/age ?a] [(< ?a $top)] [?p :person/name ?n]])");
  StepMemo memo;
  CHECK(rows_of(graph, q, {{"top", Value::integer(31)}}, &memo) ==
        std::vector<std::string>{"\"alice\"", "\"bob\""});
  const int planned = graph.estimates;
  CHECK(rows_of(graph, q, {{"top", Value::integer(26)}}, &memo) ==
        std::vector<std::string>{"\"bob\""});
  CHECK(graph.estimates > planned);
  CHECK(rows_of(graph, q, {{"top", Value::integer(99)}}, &memo) ==
        std::vector<std::string>{"\"alice\"", "\"bob\"", "\"carol\""});
}

TEST_CASE("a call begun inside another leaves the outer call's steps out of the memo",
          "[step_memo]") {
  // A SQL function the query calls may run the same query again: the inner call begins while the
  // outer one still plans, perhaps with another signature.
  StepMemo memo;
  PlanStep step;
  step.index = 2;
  std::uint64_t outer = 0, inner = 0;
  REQUIRE(memo.begin(EstimateSource{1, 7}, "a", &outer));
  REQUIRE(memo.begin(EstimateSource{1, 7}, "b", &inner));
  memo.add(outer, 0, 1, step);  // the outer call's choice, made for signature "a"
  CHECK(memo.find(inner, 0, 1) == nullptr);
  CHECK(memo.find(outer, 0, 1) == nullptr);
  memo.add(inner, 0, 1, step);
  REQUIRE(memo.find(inner, 0, 1) != nullptr);
  CHECK(memo.find(inner, 0, 1)->index == 2);
  CHECK(memo.find(outer, 0, 1) == nullptr);
  // The next call with the same signature finds the inner call's choice; another forgets it.
  std::uint64_t next = 0;
  REQUIRE(memo.begin(EstimateSource{1, 7}, "b", &next));
  CHECK(memo.find(next, 0, 1) != nullptr);
  REQUIRE(memo.begin(EstimateSource{1, 7}, "a", &next));
  CHECK(memo.find(next, 0, 1) == nullptr);
  CHECK_FALSE(memo.begin(EstimateSource{}, "a", &next));
}

}  // namespace datalog::eval
