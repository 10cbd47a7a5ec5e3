// Scripts and the write/rule commands (LANGUAGE.md §1, §4, §5, §9): what AST each form gives.
#include <catch2/catch.hpp>

#include "engine/ast_text.h"
#include "engine/parser.h"
#include "engine/time_text.h"
#include "engine/uuid_text.h"
#include "front_test_support.h"

namespace datalog {
namespace {

using testing::canonical;
using testing::parse_one;
using testing::rule_of;

std::int64_t ms(std::string_view iso) { return *parse_instant(iso).ms; }

TEST_CASE("script: every top-level form becomes a command, in order", "[parser]") {
  const std::string text =
      "(transact [[:a :b 1]])\n"
      "; a comment between forms\n"
      "(rule [(r ?x) [?x :b 1]])\n"
      "(query [:find ?x :where (r ?x)])\n"
      "(retract [[:a :b 1]])";
  std::vector<ast::Command> commands;
  REQUIRE(parse_script(text, &commands).ok());
  REQUIRE(commands.size() == 4);
  CHECK(std::holds_alternative<ast::Transact>(commands[0]));
  CHECK(std::holds_alternative<ast::Rule>(commands[1]));
  CHECK(std::holds_alternative<ast::QueryCommand>(commands[2]));
  CHECK(std::holds_alternative<ast::Retract>(commands[3]));
  CHECK(std::get<ast::Rule>(commands[1]).source == "(rule [(r ?x) [?x :b 1]])");
  CHECK(std::get<ast::Rule>(commands[1]).pos.line == 3);
  CHECK(std::get<ast::QueryCommand>(commands[2]).source == "(query [:find ?x :where (r ?x)])");
  CHECK(std::get<ast::Retract>(commands[3]).pos.line == 5);

  std::vector<ast::Command> none;
  REQUIRE(parse_script("  ; nothing but a comment\n", &none).ok());
  CHECK(none.empty());
}

TEST_CASE("transact: entities, attributes and every kind of value", "[parser][transact]") {
  const auto command = parse_one(
      R"((transact [[:alice :person/name "Alice"] [:alice :person/age 30] [42 :follows 17]
                    [#uuid "550e8400-e29b-41d4-a716-446655440000" :score 1.5]
                    [:a :flag true] [:a :none nil] [:a :friend :bob] [:a :at #inst "2024-01-01"]
                    [:a :ref #uuid "00000000-0000-0000-0000-000000000001"]
                    [:com.example/x :com.example/attr "dotted"]]))");
  const auto& t = std::get<ast::Transact>(command);
  REQUIRE(t.facts.size() == 10);
  CHECK(t.facts[0].e == Value::keyword(":alice"));
  CHECK(t.facts[0].a == Value::keyword(":person/name"));
  CHECK(t.facts[0].v == Value::string("Alice"));
  CHECK(t.facts[1].v == Value::integer(30));
  CHECK(t.facts[2].e == Value::integer(42));
  CHECK(t.facts[2].v == Value::integer(17));
  CHECK(t.facts[3].e == Value::uuid(*parse_uuid("550e8400-e29b-41d4-a716-446655440000")));
  CHECK(t.facts[3].v == Value::floating(1.5));
  CHECK(t.facts[4].v == Value::boolean(true));
  CHECK(t.facts[5].v == Value::nil());
  CHECK(t.facts[6].v == Value::keyword(":bob"));
  CHECK(t.facts[7].v == Value::instant(ms("2024-01-01")));
  CHECK(t.facts[8].v == Value::uuid(*parse_uuid("00000000-0000-0000-0000-000000000001")));
  CHECK(t.facts[9].e == Value::keyword(":com.example/x"));
  CHECK(t.facts[2].pos.line == 1);
  CHECK(t.facts[3].pos.line == 2);
  CHECK(t.facts[3].pos.column == 21);
  CHECK_FALSE(t.valid_from);
  CHECK_FALSE(t.facts[0].valid_from);
  CHECK_FALSE(t.facts[0].valid_to);
}

TEST_CASE("transact: valid time, the per-fact map wins key by key", "[parser][transact]") {
  const auto command = parse_one(
      R"((transact {:valid-from "2024-01-01"}
                   [[:a :b 1 {:valid-to "2025-01-01T12:30:00Z"}]
                    [:a :c 2]
                    [:a :d 3 {:valid-from #inst "2020-06-01" :valid-to "2021-01-01"} :ignored]]))");
  const auto& t = std::get<ast::Transact>(command);
  CHECK(t.valid_from == ms("2024-01-01"));
  CHECK_FALSE(t.valid_to);
  REQUIRE(t.facts.size() == 3);
  CHECK(t.facts[0].valid_from == ms("2024-01-01"));
  CHECK(t.facts[0].valid_to == ms("2025-01-01T12:30:00Z"));
  CHECK(t.facts[1].valid_from == ms("2024-01-01"));
  CHECK_FALSE(t.facts[1].valid_to);
  CHECK(t.facts[2].valid_from == ms("2020-06-01"));
  CHECK(t.facts[2].valid_to == ms("2021-01-01"));
  CHECK(canonical("(transact {:valid-to \"2030-01-01\"} [[:a :b 1]])") ==
        "(transact {:valid-to #inst \"2030-01-01T00:00:00.000Z\"} "
        "[[:a :b 1 {:valid-to #inst \"2030-01-01T00:00:00.000Z\"}]])");
  CHECK(canonical("(transact [])") == "(transact [])");
  // Anything after the facts vector is ignored, as in Minigraf.
  CHECK(canonical("(transact [[:a :b 1]] [[:c :d 2]])") == "(transact [[:a :b 1]])");
}

TEST_CASE("transact: entity maps give one fact per attribute (README \"Schema\")",
          "[parser][transact]") {
  const auto command = parse_one(
      R"((transact {:valid-from "2024-01-01"}
                   [{:person/email "a@x" :db/id :ann :person/age 3} [:b :c 1] {:person/email "b@x"}]))");
  const auto& t = std::get<ast::Transact>(command);
  REQUIRE(t.facts.size() == 4);
  CHECK(t.facts[0].e == Value::keyword(":ann"));  // :db/id may come anywhere in the map
  CHECK(t.facts[0].a == Value::keyword(":person/email"));
  CHECK(t.facts[0].v == Value::string("a@x"));
  CHECK(t.facts[0].entity_map == 0);
  CHECK(t.facts[0].valid_from == ms("2024-01-01"));
  CHECK(t.facts[1].a == Value::keyword(":person/age"));
  CHECK(t.facts[1].entity_map == 0);
  CHECK(t.facts[2].entity_map == -1);
  CHECK(t.facts[3].e == Value::nil());  // no :db/id: found by upsert or new
  CHECK(t.facts[3].entity_map == 1);
  CHECK(canonical("(transact [{:a 1 :db/id :x :b \"s\"} {:c 2}])") ==
        "(transact [{:db/id :x :a 1 :b \"s\"} {:c 2}])");
}

TEST_CASE("retract: [e a v] facts", "[parser][retract]") {
  const auto command = parse_one("(retract [[:alice :age 30] [7 :tag \"x\"]])");
  const auto& r = std::get<ast::Retract>(command);
  REQUIRE(r.facts.size() == 2);
  CHECK(r.facts[0].e == Value::keyword(":alice"));
  CHECK(r.facts[0].v == Value::integer(30));
  CHECK(r.facts[1].e == Value::integer(7));
  CHECK_FALSE(r.facts[0].valid_from);
  CHECK(canonical("(retract [[:alice :age 30]])") == "(retract [[:alice :age 30]])");
}

TEST_CASE("rule: any arity, variables and constants in the head, source kept", "[parser][rule]") {
  const std::string text =
      "(rule [(reach ?a ?b)\n        [?a :follows ?x]\n        (reach ?x ?b)])";
  const ast::Rule r = rule_of(text);
  CHECK(r.name == "reach");
  REQUIRE(r.head.size() == 2);
  CHECK(std::get<ast::Variable>(r.head[0]).name == "?a");
  CHECK(std::get<ast::Variable>(r.head[1]).pos.column == 18);
  REQUIRE(r.body.size() == 2);
  CHECK(std::holds_alternative<ast::Pattern>(r.body[0].node));
  const auto& call = std::get<ast::RuleCall>(r.body[1].node);
  CHECK(call.name == "reach");
  CHECK(call.pos.line == 3);
  CHECK(call.pos.column == 9);
  CHECK(r.source == text);
  CHECK(r.pos.line == 1);

  const ast::Rule wide = rule_of(R"((rule [(edge4 ?a "label" 3 :kind _) [?a :p ?b]]))");
  REQUIRE(wide.head.size() == 5);
  CHECK(std::get<Value>(wide.head[1]) == Value::string("label"));
  CHECK(std::get<Value>(wide.head[2]) == Value::integer(3));
  CHECK(std::get<Value>(wide.head[3]) == Value::keyword(":kind"));
  CHECK(std::get<ast::Variable>(wide.head[4]).is_wildcard());

  const ast::Rule flag = rule_of("(rule [(ready) [:sys :ready true]])");
  CHECK(flag.head.empty());

  CHECK(canonical("(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)] (not [?p :banned true])])") ==
        "(rule [(adult ?p) [?p :age ?a] [(>= ?a 18)] (not [?p :banned true])])");
}

TEST_CASE("commands: keyword heads are commands only when spelled as symbols", "[parser]") {
  CHECK(testing::parse_message("(:query [:find ?x :where [?x :a 1]])") ==
        "parse error at line 1, column 2: Unknown command: :query");
}

TEST_CASE("canonical text parses back to the same canonical text", "[parser][ast_text]") {
  const std::vector<std::string> scripts = {
      R"((transact {:valid-from "2024-01-01"} [[:a :b "x\"y\n" {:valid-to "2025-01-01"}] [1 :c -2.5]]))",
      "(retract [[#uuid \"550e8400-e29b-41d4-a716-446655440000\" :k 1.]])",
      "(rule [(r ?a \"k\") (or [?a :x 1] (and [?a :y ?z] [(> ?z 2)])) (not-join [?a] [?a :q _])])",
      R"((query [:find ?n (count ?e) (sum ?s :over (:partition-by ?d :order-by ?s :desc))
                 (rank :over (:order-by ?s)) (pull ?e [:name {:friends [*]}])
                 :with ?w :in $ ?x [?a ?b] [?c ...] [[?d ?f]]
                 :where [?e :name ?n] [(str ?n "-" (+ ?x 1)) ?s] (or-join [?e] [?e :a $v] (r ?e "k"))
                 :as-of "2024-01-01T00:00:00.5Z" :valid-at $t :max-results 10 :max-derived-facts 5]))",
      "(query [:find ?x :where [?x :a ?y] [(get-else $ ?x :b 0) ?z] [(missing? ?x :c)] "
      "[(ground 42) ?g] :any-valid-time :as-of $tx])",
  };
  for (const auto& s : scripts) {
    const std::string once = canonical(s);
    INFO(s << "\n-> " << once);
    CHECK(canonical(once) == once);
  }
}

}  // namespace
}  // namespace datalog
