// The rule set as a program (engine/analyzer.h, LANGUAGE.md §9): arities, negative cycles,
// the evaluation order of strongly connected components, and the rules a query reaches.
#include <catch2/catch.hpp>

#include "engine/analyzer.h"
#include "front_test_support.h"

namespace datalog {
namespace {

using testing::query_of;
using testing::rules_of;

using Strata = std::vector<std::vector<std::string>>;

Strata strata_of(const std::string& script) {
  Strata strata;
  const Status st = stratify(rules_of(script), &strata);
  INFO(st.message());
  REQUIRE(st.ok());
  return strata;
}

std::string set_error(const std::string& script) {
  const auto rules = rules_of(script);
  const Status st = check_rule_set(rules);
  Strata strata;
  const Status st2 = stratify(rules, &strata);
  CHECK(st.message() == st2.message());  // stratify fails exactly as check_rule_set does
  if (!st2.ok()) CHECK(strata.empty());
  return st.message();
}

std::string calls_error(const std::string& query, const std::string& rules) {
  const Status st = check_rule_calls(query_of(query), rules_of(rules));
  return st.message();
}

TEST_CASE("stratify: recursion and mutual recursion form components", "[stratify]") {
  CHECK(strata_of("(rule [(reach ?a ?b) [?a :follows ?b]])"
                  "(rule [(reach ?a ?b) [?a :follows ?x] (reach ?x ?b)])") == Strata{{"reach"}});
  // even/odd call each other: one component, after the base predicate they use.
  CHECK(strata_of("(rule [(even ?n) [?n :zero true]])"
                  "(rule [(even ?n) [?n :succ ?m] (odd ?m)])"
                  "(rule [(odd ?n) [?n :succ ?m] (even ?m)])"
                  "(rule [(num ?n) (or (even ?n) (odd ?n))])") == Strata{{"even", "odd"}, {"num"}});
  // Callees come first, whatever the definition order.
  CHECK(strata_of("(rule [(top ?x) (mid ?x)])"
                  "(rule [(mid ?x) (low ?x) (not (bad ?x))])"
                  "(rule [(low ?x) [?x :a 1]])"
                  "(rule [(bad ?x) [?x :b 1]])") == Strata{{"low"}, {"bad"}, {"mid"}, {"top"}});
  CHECK(strata_of("") == Strata{});
  // Calls of rules not (yet) defined are not part of the order.
  CHECK(strata_of("(rule [(p ?x) (later ?x)])") == Strata{{"p"}});
}

TEST_CASE("stratify: negation of a lower stratum is fine", "[stratify]") {
  CHECK(set_error("(rule [(blocked ?x) [?x :blocked true]])"
                  "(rule [(ok ?x) [?x :user true] (not (blocked ?x))])"
                  "(rule [(ok2 ?x) [?x :user true] (not-join [?x] (blocked ?x))])")
            .empty());
}

TEST_CASE("stratify: negative cycles are refused with Minigraf's message", "[stratify]") {
  CHECK(set_error("(rule [(p ?x) [?x :a 1] (not (p ?x))])") ==
        "unstratifiable: predicate 'p' is involved in a negative cycle through 'p'");
  CHECK(set_error("(rule [(p ?x) [?x :a 1] (not (q ?x))])"
                  "(rule [(q ?x) [?x :a 1] (not (p ?x))])") ==
        "unstratifiable: predicate 'p' is involved in a negative cycle through 'q'");
  // Through a positive path back: p -not-> q -> r -> p.
  CHECK(set_error("(rule [(p ?x) [?x :a 1] (not-join [?x] (q ?x))])"
                  "(rule [(q ?x) (r ?x)])"
                  "(rule [(r ?x) (p ?x)])") ==
        "unstratifiable: predicate 'p' is involved in a negative cycle through 'q'");
  // Through an or branch.
  CHECK(set_error("(rule [(p ?x) [?x :a 1] (or [?x :b 1] (and [?x :c 1] (not (q ?x))))])"
                  "(rule [(q ?x) (p ?x)])") ==
        "unstratifiable: predicate 'p' is involved in a negative cycle through 'q'");
  // A positive call inside an or branch is positive; the cycle here is only positive.
  CHECK(set_error("(rule [(p ?x) [?x :a 1] (or (q ?x) [?x :b 1])])"
                  "(rule [(q ?x) (p ?x)])")
            .empty());
}

TEST_CASE("stratify: arities of definitions and calls agree", "[stratify]") {
  CHECK(set_error("(rule [(p ?x) [?x :a 1]]) (rule [(p ?x ?y) [?x :a ?y]])") ==
        "rule 'p' is defined with 1 argument and with 2 arguments; every definition of a rule "
        "must have the same arity");
  CHECK(set_error("(rule [(p ?x) [?x :a 1]]) (rule [(q ?x) (p ?x 2)])") ==
        "rule 'q' calls 'p' with 2 arguments, but 'p' takes 1 argument");
  // Any arity, constants and variables alike.
  CHECK(set_error("(rule [(t3 ?a ?b ?c) [?a ?b ?c]]) (rule [(u ?x) (t3 ?x :k \"v\")])").empty());
}

TEST_CASE("check_rule_calls: undefined rules and arity mismatches", "[stratify][calls]") {
  const std::string rules =
      "(rule [(reach ?a ?b) [?a :follows ?b]])"
      "(rule [(reach ?a ?b) [?a :follows ?x] (reach ?x ?b)])"
      "(rule [(uses-missing ?a) (ghost ?a)])"
      "(rule [(bad-arity ?a) (reach ?a)])";
  CHECK(calls_error("(query [:find ?x :where (reach :alice ?x)])", rules).empty());
  CHECK(calls_error("(query [:find ?x :where [?x :a 1]])", "").empty());
  CHECK(calls_error("(query [:find ?x :where [?x :a 1] (not (reach ?x :bob))])", rules).empty());
  CHECK(calls_error("(query [:find ?x :where (reach2 :alice ?x)])", rules) ==
        "parse error at line 1, column 25: unknown rule 'reach2' "
        "(define it with (rule [(reach2 ...) ...]))");
  CHECK(calls_error("(query [:find ?x :where [?x :a 1] (or [?x :b 1] (not (nope ?x)))])", rules) ==
        "parse error at line 1, column 54: unknown rule 'nope' "
        "(define it with (rule [(nope ...) ...]))");
  CHECK(calls_error("(query [:find ?x :where (reach ?x)])", rules) ==
        "parse error at line 1, column 25: rule 'reach' takes 2 arguments but is called with 1");
  CHECK(calls_error("(query [:find ?x :where (uses-missing ?x)])", rules) ==
        "rule 'uses-missing' calls unknown rule 'ghost' (define it with (rule [(ghost ...) ...]))");
  CHECK(calls_error("(query [:find ?x :where (bad-arity ?x)])", rules) ==
        "rule 'bad-arity' calls 'reach' with 1 argument, but 'reach' takes 2 arguments");
}

TEST_CASE("stratify: a long chain of rules needs no deep recursion", "[stratify]") {
  std::string script = "(rule [(r0 ?x) [?x :a 1]])";
  for (int i = 1; i < 3000; ++i) {
    script += "(rule [(r" + std::to_string(i) + " ?x) (r" + std::to_string(i - 1) + " ?x)])";
  }
  const Strata strata = strata_of(script);
  REQUIRE(strata.size() == 3000);
  CHECK(strata.front() == std::vector<std::string>{"r0"});
  CHECK(strata.back() == std::vector<std::string>{"r2999"});
  // One big cycle with one negative edge.
  script += "(rule [(r0 ?x) [?x :b 1] (not (r2999 ?x))])";
  CHECK(set_error(script) ==
        "unstratifiable: predicate 'r0' is involved in a negative cycle through 'r2999'");
}

}  // namespace
}  // namespace datalog
