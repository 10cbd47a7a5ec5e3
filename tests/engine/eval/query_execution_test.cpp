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
#include "stub_graph.h"

namespace datalog::eval {
namespace {

// A few people in memory: every fact asserted at tx 1 and valid forever (time views ignored). Counts the cursors that
// are open, so a test can see when a stream has let go of its scan.
class PeopleGraph : public StubGraph {
 public:
  static constexpr EntityId kName = 11, kAge = 12, kFriend = 13;

  PeopleGraph() : StubGraph({{":person/name", kName}, {":person/age", kAge}, {":person/friend", kFriend}}) {
    add(1, kName, Value::string("alice"));
    add(1, kAge, Value::integer(30));
    add(1, kFriend, Value::ref(2));
    add(2, kName, Value::string("bob"));
    add(2, kAge, Value::integer(25));
    add(2, kFriend, Value::ref(3));
    add(3, kName, Value::string("carol"));
    add(3, kAge, Value::integer(41));
  }

  Status scan(const DatomFilter& f, const TimeView&, const std::function<bool(const Datom&)>& emit) override {
    for (const Datom& d : datoms_) {
      if (matches(f, d) && !emit(d)) break;
    }
    return Status::OK();
  }
  Status open_cursor(const DatomFilter& f, const TimeView&, std::unique_ptr<DatomCursor>* out) override {
    auto cursor = std::make_unique<VectorCursor>(this);
    for (const Datom& d : datoms_) {
      if (matches(f, d)) cursor->datoms.push_back(d);
    }
    *out = std::move(cursor);
    return Status::OK();
  }
  double estimate(const DatomFilter& f) override {
    double n = 0;
    for (const Datom& d : datoms_) n += matches(f, d) ? 1 : 0;
    return n;
  }
  Status rules(std::vector<StoredRule>* out) override {
    *out = {{"reach", "(rule [(reach ?a ?b) [?a :person/friend ?b]])"},
            {"reach", "(rule [(reach ?a ?c) [?a :person/friend ?b] (reach ?b ?c)])"}};
    return Status::OK();
  }

  int open_cursors = 0;

 private:
  struct VectorCursor : DatomCursor {
    explicit VectorCursor(PeopleGraph* g) : graph(g) { ++graph->open_cursors; }
    ~VectorCursor() override { --graph->open_cursors; }
    bool at_end() const override { return pos >= datoms.size(); }
    const Datom& datom() const override { return datoms[pos]; }
    Datom& take_datom() override { return datoms[pos]; }
    Status next() override {
      ++pos;
      return Status::OK();
    }
    PeopleGraph* graph;
    std::vector<Datom> datoms;
    std::size_t pos = 0;
  };

  static bool matches(const DatomFilter& f, const Datom& d) {
    return (!f.e || *f.e == d.e) && (!f.a || *f.a == d.a) && (!f.v || *f.v == d.v) && f.in_v_ranges(d.v);
  }
  void add(EntityId e, EntityId a, Value v) {
    Datom d;
    d.e = e;
    d.a = a;
    d.v = std::move(v);
    d.tx = 1;
    datoms_.push_back(std::move(d));
  }

  std::vector<Datom> datoms_;
};

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
