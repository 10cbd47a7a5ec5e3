// Variable safety of queries and rules, independent of clause order (engine/analyzer.h,
// LANGUAGE.md §8, §10, §11, §14 and header rule 3).
#include "engine/analyzer.h"

#include <catch2/catch.hpp>

#include "front_test_support.h"

namespace datalog {
namespace {

using testing::check_message;

// The error of the query with these :where clauses and :find ?x ("" when safe).
std::string where_error(const std::string& clauses, const std::string& find = "?x") {
  return check_message("(query [:find " + find + " :where " + clauses + "])");
}

std::string at(int column, const std::string& message) {
  return "parse error at line 1, column " + std::to_string(column) + ": " + message;
}

TEST_CASE("analyzer: expressions may come before the clauses that bind them", "[analyzer]") {
  CHECK(check_message("(query [:find ?p :where [(> ?age 30)] [?p :age ?age]])").empty());
  CHECK(where_error("[(+ ?y 1) ?z] [(* ?v 2) ?y] [?x :v ?v] [(> ?z 3)]").empty());
  CHECK(where_error("[?x :a ?v] [(str ?v) ?s] [(count ?s) ?n] [(> ?n 1)]").empty());
  CHECK(where_error("[?x :a ?v] [(> (+ ?v ?w) 1)] [?x :b ?w]").empty());
  // :in variables are bound.
  CHECK(check_message("(query [:find ?x :in ?min :where [?x :age ?a] [(> ?a ?min)]])").empty());
  CHECK(check_message("(query [:find ?x :in [?lo ?hi] [?n ...] :where [?x :age ?a] "
                      "[(< ?lo ?a)] [(< ?a ?hi)] [?x :name ?n]])")
            .empty());
}

TEST_CASE("analyzer: unbound expression variables keep Minigraf's message", "[analyzer]") {
  // (query [:find ?x :where [?x :a ?v] [(> ?w 1)]]) -- ?w at column 37.
  CHECK(where_error("[?x :a ?v] [(> ?w 1)]") ==
        at(40, "variable ?w in expression clause is not bound by any earlier clause"));
  // A cycle of expressions binds nothing.
  CHECK(where_error("[?x :a ?v] [(+ ?q 1) ?p] [(+ ?p 1) ?q]") ==
        at(40, "variable ?q in expression clause is not bound by any earlier clause"));
  // An expression's own output does not bind its input.
  CHECK(where_error("[?x :a ?v] [(+ ?y 1) ?y]") ==
        at(40, "variable ?y in expression clause is not bound by any earlier clause"));
  // Wildcards are never bound.
  CHECK(where_error("[?x :a ?_v] [(> ?_v 1)]") ==
        at(41, "variable ?_v in expression clause is not bound by any earlier clause"));
  // Nested expressions are checked too.
  CHECK(where_error("[?x :a ?v] [(> (+ ?v ?zz) 1)]") ==
        at(46, "variable ?zz in expression clause is not bound by any earlier clause"));
  // Slots and constants need nothing.
  CHECK(where_error("[?x :a ?v] [(> ?v $min)] [(ground 3) ?g] [(get-else $ ?x :b 0) ?o]").empty());
  CHECK(where_error("[(missing? ?x :b)] [?x :a 1]").empty());
  CHECK(where_error("[(missing? ?e :b)] [?x :a 1]") ==
        at(36, "variable ?e in expression clause is not bound by any earlier clause"));
}

TEST_CASE("analyzer: rule-head variables count as bound", "[analyzer][rule]") {
  CHECK(check_message("(rule [(big ?x) [(> ?x 10)] [?y :n ?x]])").empty());
  CHECK(check_message("(rule [(pos ?x) [(> ?x 0)]])").empty());
  CHECK(check_message("(rule [(r ?x) [?x :a ?v] [(> ?w 0)]])") ==
        at(30, "variable ?w in expression clause is not bound by any earlier clause"));
  // Rule-head variables count for or-join in our dialect (Minigraf's demo §9 fails there).
  CHECK(check_message("(rule [(highlighted ?n) (or-join [?n] [?n :a 1] [?n :b 1])])").empty());
  CHECK(check_message("(rule [(r ?x) (not [?x :banned true])])").empty());
}

TEST_CASE("analyzer: not needs every body variable bound outside", "[analyzer][not]") {
  CHECK(where_error("[?x :a ?v] (not [?x :b ?v])").empty());
  CHECK(where_error("(not [?x :b ?v]) [?x :a ?v]").empty());  // order does not matter
  CHECK(where_error("[?x :a ?v] (not [?x :b ?w])") ==
        at(48, "variable ?w in (not ...) is not bound by any outer clause"));
  CHECK(where_error("[?x :a ?v] (not [?x :b ?_w])").empty());  // wildcards are exempt
  CHECK(where_error("[?x :a ?v] (not (r ?x ?q))") ==
        at(47, "variable ?q in (not ...) is not bound by any outer clause"));
  // Expressions inside not see the outer bindings.
  CHECK(where_error("[?x :a ?v] (not [(> ?v 3)])").empty());
  CHECK(where_error("[?x :a ?v] (not [(> ?k 3)])") ==
        at(45, "variable ?k in expression clause is not bound by any earlier clause"));
  // A not binds nothing outside itself.
  CHECK(where_error("[?x :a 1] (not [?x :b ?v]) [(> ?v 1)]") ==
        at(47, "variable ?v in (not ...) is not bound by any outer clause"));
}

TEST_CASE("analyzer: not-join shares only its join variables", "[analyzer][not]") {
  CHECK(where_error("[?x :a ?v] (not-join [?x] [?x :tag ?t] [?t :bad true])").empty());
  CHECK(where_error("[?x :a ?v] (not-join [?y] [?y :tag ?t])") ==
        at(47, "join variable ?y in (not-join ...) is not bound by any outer clause"));
  CHECK(where_error("[?x :a ?v] (not-join [?x] [?x :t ?t] [(> ?t ?v)])") ==
        at(69, "variable ?v in expression clause is not bound by any earlier clause"));
  CHECK(where_error("[?x :a ?v] (not-join [?x ?_any] [?x :t ?t])").empty());
}

TEST_CASE("analyzer: or branches introduce the same new variables", "[analyzer][or]") {
  CHECK(where_error("(or [?x :a 1] [?x :b 1])").empty());
  CHECK(where_error("[?x :k ?k] (or (and [?x :a ?z] [(* ?z 2) ?y]) (and [?x :b ?z] [(+ ?z 1) ?y])) "
                    "[(> ?y 1)]")
            .empty());
  // ?z is new in the second branch only.
  CHECK(where_error("[?x :k ?k] (or [?x :a ?y] (and [?x :b ?z] [(+ ?z 1) ?y]))") ==
        at(36, "all branches of (or ...) must introduce the same set of new variables"));
  CHECK(where_error("(or [?x :a ?y] [?x :b ?z])") ==
        at(25, "all branches of (or ...) must introduce the same set of new variables"));
  // A variable the rest of the body binds is not new, wherever that clause stands.
  CHECK(where_error("(or [?x :a ?y] [?x :b 1]) [?x :c ?y]").empty());
  // The or exports what all branches bind.
  CHECK(where_error("(or [?x :a ?y] [?x :b ?y]) [(> ?y 1)]").empty());
  // Branch expressions are checked against the outer bindings plus the branch's own.
  CHECK(where_error("[?x :k ?k] (or [(> ?k 1)] [(> ?zz 1)])") ==
        at(55, "variable ?zz in expression clause is not bound by any earlier clause"));
  CHECK(where_error("[?x :k ?y] (or [?x :a 1] (and [?x :b ?y] (not [?y :c ?w])))") ==
        at(78, "variable ?w in (not ...) is not bound by any outer clause"));
  // Nested ors.
  CHECK(where_error("(or (or [?x :a 1] [?x :b 1]) [?x :c 1])").empty());
  CHECK(where_error("(or (or [?x :a ?y] [?x :b 1]) [?x :c 1])") ==
        at(29, "all branches of (or ...) must introduce the same set of new variables"));
}

TEST_CASE("analyzer: or-join join variables must be bound elsewhere", "[analyzer][or]") {
  CHECK(where_error("[?x :a ?v] (or-join [?x] [?x :b ?p] [?x :c ?q])").empty());
  CHECK(where_error("(or-join [?x] [?x :b ?p] [?x :c ?q]) [?x :a ?v]").empty());
  CHECK(where_error("[?y :a ?v] (or-join [?x] [?x :b 1])", "?y") ==
        at(46, "join variable ?x in (or-join ...) is not bound by any earlier clause"));
  // Only join variables are shared: ?v is private inside the branch.
  CHECK(where_error("[?x :a ?v] (or-join [?x] (and [?x :b ?p] [(> ?p ?v)]))") ==
        at(73, "variable ?v in expression clause is not bound by any earlier clause"));
  // or-join binds nothing new outside.
  CHECK(where_error("[?x :a 1] (or-join [?x] [?x :b ?p]) [(> ?p 1)]") ==
        at(65, "variable ?p in expression clause is not bound by any earlier clause"));
}

TEST_CASE("analyzer: :find, aggregates, windows, pull and :with", "[analyzer][find]") {
  CHECK(check_message("(query [:find ?x ?y :where [?x :a 1]])") ==
        at(18, "Find variable ?y not bound in :where"));
  CHECK(check_message("(query [:find ?x ?_y :where [?x :a 1]])").empty());
  CHECK(check_message("(query [:find (count ?y) :where [?x :a 1]])") ==
        at(22, "Aggregate variable ?y not bound in :where"));
  CHECK(check_message("(query [:find (count ?y)])") ==
        at(22, "Aggregate variable ?y not bound in :where"));
  CHECK(check_message("(query [:find (sum ?s :over (:order-by ?o)) :where [?x :s ?s]])") ==
        at(40, "Window variable ?o not bound in :where"));
  CHECK(check_message("(query [:find (rank :over (:partition-by ?p :order-by ?s)) "
                      ":where [?x :s ?s]])") == at(42, "Window variable ?p not bound in :where"));
  CHECK(check_message("(query [:find (pull ?e [*]) :where [?x :s ?s]])") ==
        at(21, "Pull variable ?e not bound in :where"));
  CHECK(check_message("(query [:find ?d (sum ?s) :with ?e :where [?e :d ?d] [?e :s ?s]])").empty());
  CHECK(check_message("(query [:find ?d (sum ?s) :with ?q :where [?e :d ?d] [?e :s ?s]])") ==
        at(33, "':with' variable ?q not bound in :where"));
  CHECK(check_message("(query [:find ?d :with ?e :where [?e :d ?d]])") ==
        at(1, "':with' clause requires at least one aggregate in :find"));
  CHECK(
      check_message("(query [:find ?d (rank :over (:order-by ?d)) :with ?e :where [?e :d ?d]])") ==
      at(1, "':with' clause requires at least one aggregate in :find"));
}

TEST_CASE("analyzer: a query with nothing to bind its variables", "[analyzer]") {
  const std::string message =
      "query has no :where clause, rules, or aggregates — nothing binds the variables. Add a "
      ":where clause (e.g., [:find ?e ?a ?v :where [?e ?a ?v]]) or use an aggregate.";
  CHECK(check_message("(query [:find ?x])") == at(1, message));
  CHECK(check_message("\n(query [])") == "parse error at line 2, column 1: " + message);
  CHECK(check_message("(query [:find ?x :in ?x])").empty());
}

TEST_CASE("analyzer: writes have nothing to check", "[analyzer]") {
  CHECK(check_message("(transact [[:a :b 1]]) (retract [[:a :b 1]])").empty());
}

TEST_CASE("analyzer: a deep nest of ors is checked quickly", "[analyzer][or]") {
  std::string clause = "[?x :leaf ?y]";
  for (int i = 0; i < 45; ++i)
    clause = "(or " + clause + " (and [?x :k" + std::to_string(i) + " ?y]))";
  CHECK(where_error(clause).empty());
  // Every level's branches bind ?x ?y ?z, the inner one through expressions.
  std::string exprs = "(or (and [?x :leaf ?y] [(* ?y 3) ?z]) (and [?x :l2 ?y] [(* ?y 4) ?z]))";
  for (int i = 0; i < 40; ++i) {
    exprs = "(or (and " + exprs + " [(+ ?z 1) ?w]) (and [?x :alt" + std::to_string(i) +
            " ?y] [(+ ?y 2) ?z] [(+ ?z 1) ?w]))";
  }
  CHECK(where_error(exprs).empty());
}

}  // namespace
}  // namespace datalog
