// QueryExecution (engine/eval/query_execution.h): which queries stream and which are evaluated in
// full, that both give the same rows, that rules are fetched only for a query that calls them,
// and that a finished stream lets go of its scan.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "engine/eval/query_execution.h"
#include "engine/script_runner.h"
#include "people_graph.h"

namespace datalog::eval {
namespace {

struct Run {
  bool streamed = false;
  std::vector<std::string> rows;  // each row as EDN values joined by spaces, in result order
  int rule_fetches = 0;
};

// Runs query on graph and reads every row; rules come from the graph, counted.
Status run(PeopleGraph& graph, const std::string& text, bool graph_stays_still, Run* out) {
  ast::Query query;
  DATALOG_RETURN_IF_ERROR(parse_query(text, &query));
  std::vector<ast::Rule> loaded;
  const auto rules = [&](const std::vector<ast::Rule>** r) {
    ++out->rule_fetches;
    DATALOG_RETURN_IF_ERROR(load_rules(graph, &loaded));
    *r = &loaded;
    return Status::OK();
  };
  RunOptions options;
  options.now_ms = 1;
  std::unique_ptr<QueryExecution> execution;
  DATALOG_RETURN_IF_ERROR(QueryExecution::start(graph, query, rules, {}, options, graph_stays_still, &execution));
  out->streamed = execution->streaming();
  while (!execution->at_end()) {
    std::string row;
    for (const Value& v : execution->row()) row += (row.empty() ? "" : " ") + v.to_edn();
    out->rows.push_back(row);
    DATALOG_RETURN_IF_ERROR(execution->next());
  }
  return Status::OK();
}

TEST_CASE("a one-scan query on a still graph streams; the same query is evaluated in a write") {
  PeopleGraph graph;
  const std::string query = "(query [:find ?n ?age :where [?p :person/age ?age] [(> ?age 26)] [?p :person/name ?n]])";
  const std::string scan = "(query [:find ?p ?age :where [?p :person/age ?age] [(> ?age 26)]])";
  Run still, moving, joined;
  REQUIRE(run(graph, scan, true, &still).ok());
  REQUIRE(run(graph, scan, false, &moving).ok());
  CHECK(still.streamed);
  CHECK_FALSE(moving.streamed);
  CHECK(still.rows == std::vector<std::string>{"#ref 1 30", "#ref 3 41"});
  CHECK(moving.rows == still.rows);
  // A join with no constant to start a chain from: evaluated in full even on a still graph.
  REQUIRE(run(graph, query, true, &joined).ok());
  CHECK_FALSE(joined.streamed);
  CHECK(joined.rows == std::vector<std::string>{"\"alice\" 30", "\"carol\" 41"});
  CHECK(graph.open_cursors == 0);
}

std::vector<std::string> sorted(std::vector<std::string> rows) {
  std::sort(rows.begin(), rows.end());
  return rows;
}

TEST_CASE("a chain of entity look-ups from a constant streams, with the rows of full evaluation") {
  PeopleGraph graph;
  graph.add(1, PeopleGraph::kFriend, Value::ref(3));  // alice knows bob and carol
  graph.add(3, PeopleGraph::kAge, Value::integer(42));  // carol has two ages: an outer value serves two rows
  struct Case {
    std::string query;
    std::vector<std::string> rows;  // sorted
  };
  const std::vector<Case> cases = {
      {"(query [:find ?f ?n :where [1 :person/friend ?f] [?f :person/name ?n]])",
       {"#ref 2 \"bob\"", "#ref 3 \"carol\""}},
      {"(query [:find ?f ?a :where [1 :person/friend ?f] [?f :person/age ?a]])",
       {"#ref 2 25", "#ref 3 41", "#ref 3 42"}},
      {"(query [:find ?n ?a :where [1 :person/friend ?f] [?f :person/name ?n] [?f :person/age ?a]])",
       {"\"bob\" 25", "\"carol\" 41", "\"carol\" 42"}},
      // Written out of order: the chain starts from the constant; duplicates are kept.
      {"(query [:find ?n :where [?g :person/name ?n] [?f :person/friend ?g] [1 :person/friend ?f]])",
       {"\"carol\""}},
      {"(query [:find ?f :where [1 :person/friend ?f] [?f :person/age _]])", {"#ref 2", "#ref 3", "#ref 3"}},
      // Expressions run where their inputs are bound: a filter on the first level, a binding on
      // the second, a filter on the third.
      {"(query [:find ?n ?twice :where [1 :person/friend ?f] [(!= ?f 2)] [?f :person/age ?a]"
       " [(* ?a 2) ?twice] [?f :person/name ?n] [(> ?twice 82)]])",
       {"\"carol\" 84"}},
      // An ident in the entity position, and a value constant in a later pattern.
      {"(query [:find ?f :where [:bob :person/friend ?f] [?f :person/age 41]])", {"#ref 3"}},
      // A root found by its value (a few datoms hold it), then look-ups from its entity.
      {"(query [:find ?n :where [?f :person/name ?n] [?p :person/friend ?f] [?p :person/name \"bob\"]])",
       {"\"carol\""}},
      // A string names no entity: nothing to look up.
      {"(query [:find ?x :where [1 :person/name ?n] [?n :person/age ?x]])", {}},
  };
  for (const Case& c : cases) {
    INFO(c.query);
    Run still, moving;
    REQUIRE(run(graph, c.query, true, &still).ok());
    REQUIRE(run(graph, c.query, false, &moving).ok());
    CHECK((still.streamed || c.rows.empty()));  // a stream with no rows has ended by the first look
    CHECK_FALSE(moving.streamed);
    CHECK(sorted(still.rows) == c.rows);
    CHECK(sorted(moving.rows) == c.rows);
    CHECK(graph.open_cursors == 0);
  }
}

TEST_CASE("joins that are not a chain from a constant are evaluated in full") {
  PeopleGraph graph;
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      // No constant to start from: a scan joined by hash is cheaper than a look-up per row.
      {"(query [:find ?n :where [?p :person/friend ?f] [?f :person/name ?n]])", {"\"bob\"", "\"carol\""}},
      // Two roots: a cross product.
      {"(query [:find ?x ?y :where [1 :person/name ?x] [2 :person/name ?y]])", {"\"alice\" \"bob\""}},
      // A value that must equal one bound before.
      {"(query [:find ?g :where [1 :person/friend ?f] [?g :person/friend ?f]])", {"#ref 1"}},
      // A keyword value matches the entity it names too.
      {"(query [:find ?p :where [1 :person/friend ?f] [?p :person/friend :bob]])", {"#ref 1"}},
  };
  for (const auto& [query, rows] : cases) {
    INFO(query);
    Run still;
    REQUIRE(run(graph, query, true, &still).ok());
    CHECK_FALSE(still.streamed);
    CHECK(sorted(still.rows) == rows);
  }
}

TEST_CASE("a chain whose root is found by a value many datoms hold is evaluated in full") {
  PeopleGraph graph;
  for (EntityId e = 100; e < 200; ++e) {  // a hundred more people aged 30
    graph.add(e, PeopleGraph::kAge, Value::integer(30));
    graph.add(e, PeopleGraph::kName, Value::string("p" + std::to_string(e)));
  }
  Run wide, narrow;
  REQUIRE(run(graph, "(query [:find ?n :where [?p :person/age 30] [?p :person/name ?n]])", true, &wide).ok());
  CHECK_FALSE(wide.streamed);
  CHECK(wide.rows.size() == 101);
  REQUIRE(run(graph, "(query [:find ?n :where [?p :person/age 41] [?p :person/name ?n]])", true, &narrow).ok());
  CHECK(narrow.streamed);
  CHECK(narrow.rows == std::vector<std::string>{"\"carol\""});
}

TEST_CASE("a streamed chain stopped after its first row lets go of every scan") {
  PeopleGraph graph;
  graph.add(1, PeopleGraph::kFriend, Value::ref(3));
  ast::Query query;
  REQUIRE(parse_query("(query [:find ?n :where [1 :person/friend ?f] [?f :person/name ?n]])", &query).ok());
  const auto no_rules = [](const std::vector<ast::Rule>**) { return Status::OK(); };
  std::unique_ptr<QueryExecution> execution;
  REQUIRE(QueryExecution::start(graph, query, no_rules, {}, RunOptions{}, true, &execution).ok());
  REQUIRE(execution->streaming());
  REQUIRE_FALSE(execution->at_end());
  CHECK(graph.open_cursors == 2);  // the friends, and the first friend's name
  execution->clear();
  CHECK(graph.open_cursors == 0);
  // The execution, started again, streams from its kept storage with the same rows.
  REQUIRE(QueryExecution::start(graph, query, no_rules, {}, RunOptions{}, true, &execution).ok());
  std::vector<std::string> names;
  while (!execution->at_end()) {
    names.push_back(execution->row()[0].to_edn());
    REQUIRE(execution->next().ok());
  }
  CHECK(sorted(names) == std::vector<std::string>{"\"bob\"", "\"carol\""});
  CHECK(graph.open_cursors == 0);
}

TEST_CASE("rules are fetched only for a query that calls them, and such a query is evaluated") {
  PeopleGraph graph;
  Run plain, recursive;
  REQUIRE(run(graph, "(query [:find ?p :where [?p :person/friend _]])", true, &plain).ok());
  CHECK(plain.rule_fetches == 0);
  CHECK(plain.streamed);
  REQUIRE(run(graph, "(query [:find ?b :where (reach 1 ?b)])", true, &recursive).ok());
  CHECK(recursive.rule_fetches == 1);
  CHECK_FALSE(recursive.streamed);
  std::sort(recursive.rows.begin(), recursive.rows.end());  // a rule's rows come in no set order
  CHECK(recursive.rows == std::vector<std::string>{"#ref 2", "#ref 3"});
}

TEST_CASE("a call of an unknown rule, or with the wrong arity, fails before anything runs") {
  PeopleGraph graph;
  Run r;
  const Status unknown = run(graph, "(query [:find ?b :where (knows 1 ?b)])", true, &r);
  CHECK(unknown.message().find("unknown rule 'knows'") != std::string::npos);
  const Status arity = run(graph, "(query [:find ?b :where (reach 1 ?b 2)])", true, &r);
  CHECK(arity.message().find("rule 'reach' takes 2 arguments but is called with 3") != std::string::npos);
  CHECK(graph.open_cursors == 0);
}

TEST_CASE("a stream holds its scan until the last row, then lets it go") {
  PeopleGraph graph;
  ast::Query query;
  REQUIRE(parse_query("(query [:find ?p ?n :where [?p :person/name ?n]])", &query).ok());
  const auto no_rules = [](const std::vector<ast::Rule>**) {
    return Status(StatusCode::Internal, "no rules expected");
  };
  std::unique_ptr<QueryExecution> execution;
  REQUIRE(QueryExecution::start(graph, query, no_rules, {}, RunOptions{}, true, &execution).ok());
  REQUIRE(execution->streaming());
  int rows = 0;
  while (!execution->at_end()) {
    CHECK(graph.open_cursors == 1);
    ++rows;
    REQUIRE(execution->next().ok());
  }
  CHECK(rows == 3);
  CHECK(graph.open_cursors == 0);
}

}  // namespace
}  // namespace datalog::eval
