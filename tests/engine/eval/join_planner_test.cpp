// JoinPlanner (engine/eval/join_planner.h): the order and access path chosen for a body, step
// by step, over a graph whose only answers are its size estimates.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "engine/eval/join_planner.h"
#include "engine/script_runner.h"
#include "stub_graph.h"

namespace datalog::eval {
namespace {

// A graph of people: many :person/name facts, few with :person/admin, one :person/boss each.
// Attributes are idents; estimate() answers from the filter's shape, as the store's statistics do.
class EstimatesOnly : public StubGraph {
 public:
  EstimatesOnly()
      : StubGraph({{":person/name", kName}, {":person/admin", kAdmin}, {":person/boss", kBoss}, {":alice", 1}}) {}

  Status scan(const DatomFilter&, const TimeView&, const std::function<bool(const Datom&)>&) override {
    return Status(StatusCode::Internal, "the planner must not scan");
  }
  Status open_cursor(const DatomFilter&, const TimeView&, std::unique_ptr<DatomCursor>*) override {
    return Status(StatusCode::Internal, "the planner must not scan");
  }
  double estimate(const DatomFilter& f) override {
    double per_attribute = 1'000'000;  // every entity
    if (f.a == kAdmin) per_attribute = 10;
    if (f.a == kBoss) per_attribute = 100'000;
    if (f.e) return per_attribute / 100'000;  // one entity's facts of the attribute
    if (f.v) return f.a == kName ? 1 : per_attribute / 1000;
    return per_attribute;
  }

  static constexpr EntityId kName = 11, kAdmin = 12, kBoss = 13;
};

// Input rows binding vars, for the relation a body starts from.
Relation input_of(const std::vector<std::string>& vars, std::size_t rows) {
  Relation rel;
  rel.vars = vars;
  for (std::size_t r = 0; r < rows; ++r) rel.rows.push_back_widened(RowView(), vars.size());
  return rel;
}

// The plan of query's :where: the clauses (by written position) in the order the planner picks
// them, with their access paths, as if each step kept the planner's row estimate.
std::vector<std::string> plan_of(const std::string& query, Relation rel = Relation::unit()) {
  ast::Query q;
  const Status parsed = parse_query(query, &q);
  INFO(parsed.message());
  REQUIRE(parsed.ok());
  EstimatesOnly graph;
  EvalContext ctx(graph, TimeView{}, Limits{});
  DerivedLookup derived;
  const JoinPlanner planner(ctx, derived, q.where);
  std::vector<bool> done(q.where.size(), false);
  std::vector<std::string> steps;
  for (std::size_t n = 0; n < q.where.size(); ++n) {
    PlanStep step;
    REQUIRE(planner.next(rel, done, &step).ok());
    REQUIRE_FALSE(done[step.index]);
    done[step.index] = true;
    steps.push_back(std::to_string(step.index) + " " + std::string(step.access));
    // Bind what the clause binds, with as many rows as estimated (at least one).
    for (const std::string& v : clause_binds(q.where[step.index])) {
      if (!rel.binds(v)) rel.vars.push_back(v);
    }
    const auto rows = static_cast<std::size_t>(std::max(1.0, std::min(step.estimate, 5000.0)));
    rel = input_of(rel.vars, rows);
  }
  return steps;
}

TEST_CASE("join planner: the selective pattern first, then lookups per row", "[planner]") {
  CHECK(plan_of("(query [:find ?n :where [?e :person/name ?n] [?e :person/admin true]])") ==
        std::vector<std::string>{"1 index scan", "0 index lookup per row"});
}

TEST_CASE("join planner: a constant entity is a point lookup; an unknown ident matches nothing",
          "[planner]") {
  CHECK(plan_of("(query [:find ?b :where [?e :person/boss ?b] [:alice :person/boss ?e]])") ==
        std::vector<std::string>{"1 index scan", "0 index lookup per row"});
  CHECK(plan_of("(query [:find ?n :where [?e :person/name ?n] [?e :no/such ?x]])") ==
        std::vector<std::string>{"1 no match (unknown ident)", "0 index lookup per row"});
}

TEST_CASE("join planner: filters run as soon as their inputs are bound", "[planner]") {
  CHECK(plan_of("(query [:find ?e :where [?e :person/admin true] [(> ?n \"m\")] "
                "[?e :person/name ?n] [(str ?n \"!\") ?s]])") ==
        std::vector<std::string>{"0 index scan", "2 index lookup per row", "1 filter", "3 filter"});
}

TEST_CASE("join planner: not waits for its variables, then is an anti-join", "[planner]") {
  CHECK(plan_of("(query [:find ?e :where (not [?e :person/admin true]) [?e :person/boss ?b]])") ==
        std::vector<std::string>{"1 index scan", "0 hash anti-join"});
}

TEST_CASE("join planner: many rows against a small pattern hash it; against a large one, probe",
          "[planner]") {
  // 5,000 input rows: probing :person/admin 5,000 times costs more than one scan of its 10
  // facts; probing :person/boss (one fact per entity) costs less than a scan of 100,000.
  CHECK(plan_of("(query [:find ?e :in [?e ...] :where [?e :person/admin ?t]])", input_of({"?e"}, 5000)) ==
        std::vector<std::string>{"0 hash join (one scan)"});
  CHECK(plan_of("(query [:find ?e :in [?e ...] :where [?e :person/boss ?b]])", input_of({"?e"}, 5000)) ==
        std::vector<std::string>{"0 index lookup per row"});
}

TEST_CASE("join planner: a pattern sharing nothing waits while anything else can run",
          "[planner]") {
  const auto steps = plan_of("(query [:find ?e ?f :where [?e :person/admin true] "
                             "[?f :person/boss ?g] [?e :person/name ?n]])");
  REQUIRE(steps.size() == 3);
  CHECK(steps[0] == "0 index scan");
  CHECK(steps[1] == "2 index lookup per row");
  CHECK(steps[2] == "1 cross product");
}

TEST_CASE("join planner: an or-join runs before a large scan that binds its join variable",
          "[planner]") {
  // Its branches are selective; probing them once per :person/name fact would cost a million.
  CHECK(plan_of("(query [:find ?n :where [?e :person/name ?n] "
                "(or-join [?e] [?e :person/admin true] [:alice :person/boss ?e])])") ==
        std::vector<std::string>{"1 union of branches", "0 index lookup per row"});
}

TEST_CASE("join planner: with nothing ready, the first clause left runs, to say why", "[planner]") {
  CHECK(plan_of("(query [:find ?x :where [(> ?x 1)]])") == std::vector<std::string>{"0 last resort"});
}

}  // namespace
}  // namespace datalog::eval
