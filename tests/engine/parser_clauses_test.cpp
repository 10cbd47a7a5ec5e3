// :where clauses (LANGUAGE.md §7-§11, §13, §15 and the header's get-else / missing? / ground):
// patterns, expression clauses, rule calls, negation and disjunction.
#include <catch2/catch.hpp>

#include "engine/ast_text.h"
#include "engine/uuid_text.h"
#include "front_test_support.h"

namespace datalog {
namespace {

using testing::canonical;
using testing::query_of;

// The canonical text of the :where clauses of a query written with them.
std::string where_of(const std::string& clauses) {
  const ast::Query q = query_of("(query [:find ?x :where " + clauses + "])");
  std::string out;
  for (const auto& c : q.where) out += (out.empty() ? "" : " ") + format_clause(c);
  return out;
}

TEST_CASE("pattern: variables, wildcards, constants and slots", "[parser][pattern]") {
  const ast::Query q = query_of(
      "(query [:find ?x :where [?x :a/b ?v] [_ ?attr ?_w] "
      "[#uuid \"550e8400-e29b-41d4-a716-446655440000\" :k 1.5] [42 :follows $who] "
      "[$e :name \"x\"] [:alice :db/valid-from ?vf]])");
  REQUIRE(q.where.size() == 6);
  const auto& p0 = std::get<ast::Pattern>(q.where[0].node);
  CHECK(std::get<ast::Variable>(p0.e).name == "?x");
  CHECK(std::get<Value>(p0.a) == Value::keyword(":a/b"));
  CHECK(p0.pos.column == 25);
  const auto& p1 = std::get<ast::Pattern>(q.where[1].node);
  CHECK(std::get<ast::Variable>(p1.e).is_wildcard());
  CHECK(std::get<ast::Variable>(p1.a).name == "?attr");
  CHECK(std::get<ast::Variable>(p1.v).is_wildcard());
  const auto& p2 = std::get<ast::Pattern>(q.where[2].node);
  CHECK(std::get<Value>(p2.e) == Value::uuid(*parse_uuid("550e8400-e29b-41d4-a716-446655440000")));
  CHECK(std::get<Value>(p2.v) == Value::floating(1.5));
  const auto& p3 = std::get<ast::Pattern>(q.where[3].node);
  CHECK(std::get<Value>(p3.e) == Value::integer(42));
  CHECK(std::get<ast::Slot>(p3.v).name == "who");
  const auto& p4 = std::get<ast::Pattern>(q.where[4].node);
  CHECK(std::get<ast::Slot>(p4.e).name == "e");
  // A pseudo-attribute is an ordinary keyword in attribute position (§13).
  const auto& p5 = std::get<ast::Pattern>(q.where[5].node);
  CHECK(std::get<Value>(p5.a) == Value::keyword(":db/valid-from"));
}

TEST_CASE("expression clauses: filters, bindings, nesting, slots", "[parser][expr]") {
  const ast::Query q = query_of(
      "(query [:find ?x :where [?x :age ?a] [(> ?a 30)] [(+ ?a (* 2 ?a)) ?b] "
      "[(matches? ?n \"^A.*\")] [(my-pred? ?x)] [(str ?a \"-\" :k nil true 1.5) ?s] "
      "[(< ?a $max)] [(- ?a)]])");
  REQUIRE(q.where.size() == 8);
  const auto& filter = std::get<ast::ExprClause>(q.where[1].node);
  CHECK(filter.expr.op == ">");
  CHECK_FALSE(filter.out);
  REQUIRE(filter.expr.args.size() == 2);
  CHECK(std::get<ast::Variable>(filter.expr.args[0]).name == "?a");
  CHECK(std::get<Value>(filter.expr.args[1]) == Value::integer(30));

  const auto& binding = std::get<ast::ExprClause>(q.where[2].node);
  CHECK(binding.out->name == "?b");
  const auto& nested = std::get<std::shared_ptr<ast::Expr>>(binding.expr.args[1]);
  CHECK(nested->op == "*");
  CHECK(std::get<Value>(nested->args[0]) == Value::integer(2));

  const auto& re = std::get<ast::ExprClause>(q.where[3].node);
  CHECK(re.expr.op == "matches?");
  CHECK(std::get<Value>(re.expr.args[1]) == Value::string("^A.*"));

  CHECK(std::get<ast::ExprClause>(q.where[4].node).expr.op == "my-pred?");
  const auto& str = std::get<ast::ExprClause>(q.where[5].node);
  CHECK(str.expr.args.size() == 6);
  CHECK(std::get<ast::Slot>(std::get<ast::ExprClause>(q.where[6].node).expr.args[1]).name == "max");
  CHECK(std::get<ast::ExprClause>(q.where[7].node).expr.args.size() == 1);
}

TEST_CASE("get-else, missing? and ground, with or without Datomic's $", "[parser][expr]") {
  const ast::Query q = query_of(
      "(query [:find ?x ?v :where [?x :name _] [(get-else $ ?x :age 0) ?v] "
      "[(get-else ?x :nick \"none\") ?n] [(missing? $ ?x :email)] [(missing? ?x :phone)] "
      "[(ground 42) ?g] [(ground $p) ?h]])");
  const auto& ge = std::get<ast::ExprClause>(q.where[1].node);
  CHECK(ge.expr.op == "get-else");
  REQUIRE(ge.expr.args.size() == 3);
  CHECK(std::get<ast::Variable>(ge.expr.args[0]).name == "?x");
  CHECK(std::get<Value>(ge.expr.args[1]) == Value::keyword(":age"));
  CHECK(std::get<Value>(ge.expr.args[2]) == Value::integer(0));
  CHECK(ge.out->name == "?v");
  CHECK(std::get<ast::ExprClause>(q.where[2].node).expr.args.size() == 3);
  const auto& missing = std::get<ast::ExprClause>(q.where[3].node);
  CHECK(missing.expr.op == "missing?");
  CHECK(missing.expr.args.size() == 2);
  CHECK_FALSE(missing.out);
  CHECK(std::get<ast::ExprClause>(q.where[4].node).expr.args.size() == 2);
  const auto& ground = std::get<ast::ExprClause>(q.where[5].node);
  CHECK(std::get<Value>(ground.expr.args[0]) == Value::integer(42));
  CHECK(ground.out->name == "?g");
  CHECK(std::get<ast::Slot>(std::get<ast::ExprClause>(q.where[6].node).expr.args[0]).name == "p");
}

TEST_CASE("rule calls: variables, constants and slots as arguments", "[parser][rule-call]") {
  const ast::Query q =
      query_of("(query [:find ?x :where (reach :alice ?x) (tagged ?x \"red\" 3 $k _) (zero)])");
  const auto& reach = std::get<ast::RuleCall>(q.where[0].node);
  CHECK(reach.name == "reach");
  CHECK(std::get<Value>(reach.args[0]) == Value::keyword(":alice"));
  CHECK(reach.pos.column == 25);
  const auto& tagged = std::get<ast::RuleCall>(q.where[1].node);
  REQUIRE(tagged.args.size() == 5);
  CHECK(std::get<Value>(tagged.args[1]) == Value::string("red"));
  CHECK(std::get<ast::Slot>(tagged.args[3]).name == "k");
  CHECK(std::get<ast::Variable>(tagged.args[4]).is_wildcard());
  CHECK(std::get<ast::RuleCall>(q.where[2].node).args.empty());
}

TEST_CASE("not and not-join", "[parser][not]") {
  const ast::Query q = query_of(
      "(query [:find ?x :where [?x :a _] (not [?x :banned true] [(> ?x 1)] (bad ?x)) "
      "(not-join [?x] [?x :tag ?t] [?t :bad true])])");
  const auto& n = std::get<ast::Not>(q.where[1].node);
  CHECK_FALSE(n.is_join);
  REQUIRE(n.body.size() == 3);
  CHECK(std::holds_alternative<ast::Pattern>(n.body[0].node));
  CHECK(std::holds_alternative<ast::ExprClause>(n.body[1].node));
  CHECK(std::holds_alternative<ast::RuleCall>(n.body[2].node));
  const auto& nj = std::get<ast::Not>(q.where[2].node);
  CHECK(nj.is_join);
  REQUIRE(nj.join_vars.size() == 1);
  CHECK(nj.join_vars[0].name == "?x");
  CHECK(nj.body.size() == 2);
  CHECK(nj.pos.column == 79);
}

TEST_CASE("or, or-join and and-branches, nested", "[parser][or]") {
  const ast::Query q = query_of(
      "(query [:find ?x :where (or [?x :a 1] (and [?x :b ?y] [(> ?y 2)]) (r ?x) "
      "(not [?x :c 3])) (or-join [?x] [?x :d ?p] (and [?x :e ?q] (or [?q :f 1] [?q :g 1])))])");
  const auto& o = std::get<ast::Or>(q.where[0].node);
  CHECK_FALSE(o.is_join);
  REQUIRE(o.branches.size() == 4);
  CHECK(o.branches[0].size() == 1);
  CHECK(o.branches[1].size() == 2);
  CHECK(std::holds_alternative<ast::RuleCall>(o.branches[2][0].node));
  CHECK(std::holds_alternative<ast::Not>(o.branches[3][0].node));
  const auto& oj = std::get<ast::Or>(q.where[1].node);
  CHECK(oj.is_join);
  CHECK(oj.join_vars[0].name == "?x");
  REQUIRE(oj.branches.size() == 2);
  CHECK(std::holds_alternative<ast::Or>(oj.branches[1][1].node));
  CHECK(where_of("(or [?x :a 1] (and [?x :b ?y] [(> ?y 2)]))") ==
        "(or [?x :a 1] (and [?x :b ?y] [(> ?y 2)]))");
  CHECK(where_of("(or-join [?x ?y] (and [?x :a ?y]) [?x :b ?y])") ==
        "(or-join [?x ?y] [?x :a ?y] [?x :b ?y])");
}

TEST_CASE("rule bodies take every clause form", "[parser][rule]") {
  const auto rule = testing::rule_of(
      "(rule [(ok ?p) [?p :age ?a] [(>= ?a 18)] (member ?p) (not (banned ?p)) "
      "(not-join [?p] [?p :flag ?f] [?f :bad true]) (or [?p :x 1] [?p :y 1]) "
      "(or-join [?p] [?p :z ?z])])");
  REQUIRE(rule.body.size() == 7);
  CHECK(std::holds_alternative<ast::ExprClause>(rule.body[1].node));
  CHECK(std::holds_alternative<ast::RuleCall>(rule.body[2].node));
  CHECK(std::holds_alternative<ast::Not>(rule.body[3].node));
  CHECK(std::get<ast::Or>(rule.body[6].node).is_join);
}

}  // namespace
}  // namespace datalog
