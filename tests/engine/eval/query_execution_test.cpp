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
  // Two patterns are a join: evaluated in full even on a still graph.
  REQUIRE(run(graph, query, true, &joined).ok());
  CHECK_FALSE(joined.streamed);
  CHECK(joined.rows == std::vector<std::string>{"\"alice\" 30", "\"carol\" 41"});
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
