// The execution operators (engine/eval/pattern_join.cpp, anti_join.cpp, branch_union.cpp,
// expression_step.cpp) through whole queries over a graph in memory: exact result sets, and the
// access path each step took (from the trace), so both ways of joining a pattern are covered.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/eval/query_runner.h"
#include "engine/script_runner.h"
#include "people_graph.h"

namespace datalog::eval {
namespace {

struct Evaluated {
  std::vector<std::string> rows;   // each row's EDN values joined by spaces, sorted
  std::vector<std::string> steps;  // each trace step: its access path
};

// People 1-3 of PeopleGraph, and 4 dave, 30, his own friend; :bob names entity 2. A crowd adds
// that many people with a name and nothing else (entities 100 on), which makes a scan of names
// cost more than a few lookups.
Evaluated evaluate(const std::string& text, const QueryInputs& inputs = {}, int crowd = 0) {
  PeopleGraph graph;
  graph.add(4, PeopleGraph::kName, Value::string("dave"));
  graph.add(4, PeopleGraph::kAge, Value::integer(30));
  graph.add(4, PeopleGraph::kFriend, Value::ref(4));
  for (int i = 0; i < crowd; ++i) graph.add(100 + i, PeopleGraph::kName, Value::string("p" + std::to_string(i)));
  ast::Query query;
  const Status parsed = parse_query(text, &query);
  INFO(parsed.message());
  REQUIRE(parsed.ok());
  RunOptions options;
  options.now_ms = 1;
  options.trace = true;
  QueryResult result;
  const Status st = run_query(graph, query, {}, inputs, options, &result);
  INFO(st.message());
  REQUIRE(st.ok());
  Evaluated out;
  for (RowView row : result.rows) {
    std::string text_row;
    for (const Value& v : row) text_row += (text_row.empty() ? "" : " ") + v.to_edn();
    out.rows.push_back(text_row);
  }
  std::sort(out.rows.begin(), out.rows.end());
  for (const auto& step : result.trace.steps) out.steps.push_back(step.access);
  return out;
}

bool took(const Evaluated& e, const std::string& access) {
  return std::find(e.steps.begin(), e.steps.end(), access) != e.steps.end();
}

TEST_CASE("pattern join by index lookups per row") {
  const Evaluated e = evaluate(
      "(query [:find ?n ?fn :where [?p :person/friend ?f] [?p :person/name ?n] [?f :person/name ?fn]])", {},
      1000);
  CHECK(e.rows == std::vector<std::string>{"\"alice\" \"bob\"", "\"bob\" \"carol\"", "\"dave\" \"dave\""});
  CHECK(took(e, "index lookup per row"));
}

TEST_CASE("pattern join by one hashed scan") {
  // 40 input rows against a pattern of 4 facts: one scan, hashed, beats 40 lookups. Results are
  // bags (LANGUAGE.md): each input row gives its row.
  Relation people;
  people.vars = {"?p"};
  for (int i = 0; i < 40; ++i) people.rows.push_back_widened(RowView(), 1)[0] = Value::ref(1 + i % 4);
  QueryInputs inputs;
  inputs.bindings.push_back(std::move(people));
  const Evaluated e = evaluate("(query [:find ?p ?a :in [?p ...] :where [?p :person/age ?a]])", inputs);
  std::vector<std::string> expected;
  for (const char* row : {"#ref 1 30", "#ref 2 25", "#ref 3 41", "#ref 4 30"}) expected.insert(expected.end(), 10, row);
  CHECK(e.rows == expected);
  CHECK(took(e, "hash join (one scan)"));
}

TEST_CASE("a variable repeated in one pattern must unify") {
  const Evaluated e = evaluate("(query [:find ?p :where [?p :person/friend ?p]])");
  CHECK(e.rows == std::vector<std::string>{"#ref 4"});
}

TEST_CASE("an ident in the value position matches the entity it names") {
  CHECK(evaluate("(query [:find ?p :where [?p :person/friend :bob]])").rows ==
        std::vector<std::string>{"#ref 1"});
  CHECK(evaluate("(query [:find ?p :where [?p :person/friend :nobody]])").rows.empty());
}

TEST_CASE("a constant entity or attribute that names nothing matches nothing") {
  CHECK(evaluate("(query [:find ?v :where [:nobody :person/age ?v]])").rows.empty());
  CHECK(evaluate("(query [:find ?v :where [1 :person/height ?v]])").rows.empty());
}

TEST_CASE("not and not-join are anti-joins on their variables") {
  CHECK(evaluate("(query [:find ?n :where [?p :person/name ?n] (not [?p :person/friend _])])").rows ==
        std::vector<std::string>{"\"carol\""});
  // People none of whose friends is older than 26.
  CHECK(evaluate("(query [:find ?n :where [?p :person/name ?n] "
                 "(not-join [?p] [?p :person/friend ?f] [?f :person/age ?a] [(> ?a 26)])])")
            .rows == std::vector<std::string>{"\"alice\"", "\"carol\""});
}

TEST_CASE("or is the union of its branches") {
  CHECK(evaluate("(query [:find ?n :where [?p :person/name ?n] "
                 "(or [?p :person/age 25] [?p :person/age 41])])")
            .rows == std::vector<std::string>{"\"bob\"", "\"carol\""});
  CHECK(evaluate("(query [:find ?n :where [?p :person/name ?n] "
                 "(or-join [?p] (and [?p :person/friend ?f] [?f :person/age 41]) [?p :person/age 30])])")
            .rows == std::vector<std::string>{"\"alice\"", "\"bob\"", "\"dave\""});
}

TEST_CASE("expressions filter rows and bind new variables") {
  CHECK(evaluate("(query [:find ?n ?next :where [?p :person/name ?n] [?p :person/age ?a] "
                 "[(< ?a 35)] [(+ ?a 1) ?next]])")
            .rows == std::vector<std::string>{"\"alice\" 31", "\"bob\" 26", "\"dave\" 31"});
}

}  // namespace
}  // namespace datalog::eval
