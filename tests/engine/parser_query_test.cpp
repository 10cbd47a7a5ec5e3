// The query vector (LANGUAGE.md §6, §12, §14, §15, §17 and the header's :in and pull): sections,
// :find elements, time travel, limits.
#include <catch2/catch.hpp>

#include "engine/ast_text.h"
#include "engine/time_text.h"
#include "front_test_support.h"

namespace datalog {
namespace {

using testing::canonical;
using testing::query_of;

TEST_CASE("query: sections in any order, :where may repeat", "[parser][query]") {
  const ast::Query q = query_of(
      "(query [:where [?e :name ?n] :find ?n ?e :where [?e :age ?a] :max-results 5 :find ?a])");
  REQUIRE(q.find.size() == 3);
  CHECK(q.find[0].var.name == "?n");
  CHECK(q.find[1].var.name == "?e");
  CHECK(q.find[2].var.name == "?a");
  CHECK(q.where.size() == 2);
  CHECK(q.max_results == 5);
  CHECK(q.pos.column == 1);
  CHECK(canonical("(query [:find ?x ?x :where [?x :a 1]])") ==
        "(query [:find ?x ?x :where [?x :a 1]])");
}

TEST_CASE("query: :find variables, aggregates and their headers", "[parser][query][find]") {
  const ast::Query q = query_of(
      "(query [:find ?d (count ?e) (count-distinct ?e) (sum ?s) (avg ?s) (median ?s) "
      "(variance ?s) (stddev ?s) (min ?s) (max ?s) (my-udf ?s) ?_ignored "
      ":where [?e :dept ?d] [?e :salary ?s]])");
  REQUIRE(q.find.size() == 12);
  CHECK(q.find[0].kind == ast::FindElement::Kind::Variable);
  CHECK(q.find[0].header == "?d");
  const std::vector<std::string> aggregates = {"count",  "count-distinct", "sum",    "avg",
                                               "median", "variance",       "stddev", "min",
                                               "max",    "my-udf"};
  for (std::size_t i = 0; i < aggregates.size(); ++i) {
    const auto& f = q.find[i + 1];
    CHECK(f.kind == ast::FindElement::Kind::Aggregate);
    CHECK(f.function == aggregates[i]);
  }
  CHECK(q.find[1].header == "(count ?e)");
  CHECK(q.find[1].var.name == "?e");
  CHECK(q.find[4].header == "(avg ?s)");
  CHECK(q.find[11].var.is_wildcard());
}

TEST_CASE("query: window functions", "[parser][query][window]") {
  const ast::Query q = query_of(
      "(query [:find ?n (sum ?s :over (:partition-by ?d :order-by ?s :desc)) "
      "(rank :over (:order-by ?s)) (row-number :over (:desc :order-by ?s)) "
      "(dense-rank :over (:order-by ?s)) (lag ?s :over (:order-by ?s)) (lead ?s :over (:order-by "
      "?s :asc)) "
      "(avg ?s :over (:order-by ?s)) (my-udf ?s :over (:order-by ?s)) "
      ":where [?e :name ?n] [?e :dept ?d] [?e :salary ?s]])");
  REQUIRE(q.find.size() == 9);
  const auto& sum = q.find[1];
  CHECK(sum.kind == ast::FindElement::Kind::Window);
  CHECK(sum.function == "sum");
  CHECK(sum.has_var);
  CHECK(sum.var.name == "?s");
  REQUIRE(sum.over);
  CHECK(sum.over->partition_by->name == "?d");
  CHECK(sum.over->order_by.name == "?s");
  CHECK(sum.over->order == ast::Order::Desc);
  CHECK(sum.header == "(sum ?s :over ...)");
  const auto& rank = q.find[2];
  CHECK(rank.kind == ast::FindElement::Kind::Window);
  CHECK_FALSE(rank.has_var);
  CHECK_FALSE(rank.over->partition_by);
  CHECK(rank.over->order == ast::Order::Asc);
  CHECK(rank.header == "(rank :over ...)");
  CHECK(q.find[3].over->order == ast::Order::Desc);
  CHECK_FALSE(q.find[4].has_var);
  CHECK(q.find[4].function == "dense-rank");
  CHECK(q.find[5].function == "lag");
  CHECK(q.find[5].has_var);
  CHECK(q.find[6].function == "lead");
  CHECK(q.find[7].function == "avg");
  CHECK(q.find[8].function == "my-udf");
  CHECK(q.find[8].has_var);
}

TEST_CASE("query: pull in :find keeps the pattern's source text", "[parser][query][pull]") {
  const ast::Query q = query_of(
      "(query [:find (pull ?e [:person/name {:person/friends [:person/name]}]) "
      ":where [?e :person/name _]])");
  REQUIRE(q.find.size() == 1);
  const auto& f = q.find[0];
  CHECK(f.kind == ast::FindElement::Kind::Pull);
  CHECK(f.var.name == "?e");
  CHECK(f.function == "pull");
  CHECK(f.pull_pattern == "[:person/name {:person/friends [:person/name]}]");
  CHECK(f.header == "(pull ?e [:person/name {:person/friends [:person/name]}])");
}

TEST_CASE("query: :with", "[parser][query]") {
  const ast::Query q =
      query_of("(query [:find ?d (sum ?s) :with ?e ?x :where [?e :dept ?d] [?e :s ?s]])");
  REQUIRE(q.with.size() == 2);
  CHECK(q.with[0].name == "?e");
  CHECK(q.with[1].name == "?x");
  CHECK(q.where.size() == 2);  // the :where section opened after :with
  // :with keeps the open section open: elements after its variables and a keyword still land.
  const ast::Query q2 = query_of("(query [:find (count ?e) :with ?e :where [?e :a 1]])");
  CHECK(q2.with.size() == 1);
}

TEST_CASE("query: :in scalar, tuple, collection and relation bindings", "[parser][query][in]") {
  const ast::Query q = query_of(
      "(query [:find ?n :in $ ?name [?a ?b] [?c ...] [[?d ?e]] [_ ?f] "
      ":where [?p :name ?name] [?p :n ?n]])");
  REQUIRE(q.in.size() == 5);
  CHECK(q.in[0].kind == ast::InBinding::Kind::Scalar);
  CHECK(q.in[0].vars[0].name == "?name");
  CHECK(q.in[1].kind == ast::InBinding::Kind::Tuple);
  CHECK(q.in[1].vars.size() == 2);
  CHECK(q.in[2].kind == ast::InBinding::Kind::Collection);
  CHECK(q.in[2].vars[0].name == "?c");
  CHECK(q.in[3].kind == ast::InBinding::Kind::Relation);
  CHECK(q.in[3].vars[1].name == "?e");
  CHECK(q.in[4].kind == ast::InBinding::Kind::Tuple);
  CHECK(q.in[4].vars[0].is_wildcard());
  CHECK(q.in[2].pos.column == 38);
}

TEST_CASE("query: :as-of and :valid-at forms", "[parser][query][temporal]") {
  const auto ms = [](std::string_view iso) { return *parse_instant(iso).ms; };
  ast::Query q = query_of("(query [:find ?x :as-of 3 :valid-at \"2024-01-01\" :where [?x :a 1]])");
  CHECK(q.as_of->kind == ast::AsOf::Kind::Counter);
  CHECK(q.as_of->value == 3);
  CHECK(q.valid_at->kind == ast::ValidAt::Kind::Time);
  CHECK(q.valid_at->ms == ms("2024-01-01"));

  q = query_of(
      "(query [:find ?x :as-of \"2024-01-01T10:00:00.250Z\" :valid-at :any-valid-time "
      ":where [?x :a 1]])");
  CHECK(q.as_of->kind == ast::AsOf::Kind::Time);
  CHECK(q.as_of->value == ms("2024-01-01T10:00:00.250Z"));
  CHECK(q.valid_at->kind == ast::ValidAt::Kind::AnyValidTime);

  q = query_of("(query [:find ?x :as-of $tx :valid-at $t :where [?x :a 1]])");
  CHECK(q.as_of->kind == ast::AsOf::Kind::Slot);
  CHECK(q.as_of->slot == "tx");
  CHECK(q.valid_at->kind == ast::ValidAt::Kind::Slot);
  CHECK(q.valid_at->slot == "t");

  q = query_of("(query [:find ?x :any-valid-time :as-of 0 :where [?x :a 1]])");
  CHECK(q.valid_at->kind == ast::ValidAt::Kind::AnyValidTime);
  CHECK(q.as_of->value == 0);

  q = query_of(
      "(query [:find ?x :as-of #inst \"2020-01-01\" :valid-at #inst \"2021-01-01\" "
      ":where [?x :a 1]])");
  CHECK(q.as_of->kind == ast::AsOf::Kind::Time);
  CHECK(q.as_of->value == ms("2020-01-01"));
  CHECK(q.valid_at->ms == ms("2021-01-01"));

  // The last one wins, as in Minigraf.
  q = query_of("(query [:find ?x :as-of 1 :as-of 2 :where [?x :a 1]])");
  CHECK(q.as_of->value == 2);
}

TEST_CASE("query: :max-results and :max-derived-facts anywhere", "[parser][query][limits]") {
  const ast::Query q =
      query_of("(query [:max-derived-facts 100 :find ?x :where [?x :a 1] :max-results 1])");
  CHECK(q.max_derived_facts == 100);
  CHECK(q.max_results == 1);
  const ast::Query none = query_of("(query [:find ?x :where [?x :a 1]])");
  CHECK_FALSE(none.max_results);
  CHECK_FALSE(none.max_derived_facts);
  CHECK_FALSE(none.as_of);
  CHECK_FALSE(none.valid_at);
}

TEST_CASE("query: the source text is the whole form", "[parser][query]") {
  std::vector<ast::Command> commands;
  const std::string text = "  (query [:find ?x\n          :where [?x :a 1]])  ";
  const auto command = testing::parse_one(text);
  CHECK(std::get<ast::QueryCommand>(command).source ==
        "(query [:find ?x\n          :where [?x :a 1]])");
}

}  // namespace
}  // namespace datalog
