// Every parse error of LANGUAGE.md §1, §4-§15, §17 and of the header's extensions: the exact
// message (Minigraf's wording where it has one) and the position of the offending element.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "front_test_support.h"

namespace datalog {
namespace {

struct Case {
  std::string text;     // the script
  std::string at;       // the offending element's text: the error points at its first byte
  std::string message;  // the message after the position
  int nth = 1;          // which occurrence of `at`
};

std::string expected(const Case& c) {
  std::size_t offset = std::string::npos;
  for (int k = 0; k < c.nth; ++k) {
    offset = c.text.find(c.at, offset == std::string::npos ? 0 : offset + 1);
    REQUIRE(offset != std::string::npos);
  }
  int line = 1;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < offset; ++i) {
    if (c.text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return "parse error at line " + std::to_string(line) + ", column " +
         std::to_string(offset - line_start + 1) + ": " + c.message;
}

void check_all(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    INFO(c.text);
    CHECK(testing::parse_message(c.text) == expected(c));
  }
}

// A query whose :where holds `clauses`.
std::string where(const std::string& clauses) {
  return "(query [:find ?x :where [?x :a ?v] " + clauses + "])";
}

TEST_CASE("errors: top-level forms (§1)", "[parser][errors]") {
  check_all({
      {"[1 2]", "[1", "Expected a list starting with a command symbol"},
      {"()", "()", "Expected a list starting with a command symbol"},
      {"\"query\"", "\"", "Expected a list starting with a command symbol"},
      {"(42 [])", "42", "Expected command symbol"},
      {"(select [:find ?x])", "select", "Unknown command: select"},
      {"(:query [:find ?x])", ":query", "Unknown command: :query"},
      {"(transact [[:a :b 1]])\n  (frobnicate)", "frobnicate", "Unknown command: frobnicate"},
  });
}

TEST_CASE("errors: transact and retract (§4, §5)", "[parser][errors][transact]") {
  check_all({
      {"(transact)", "(transact", "Transact requires a vector of facts"},
      {"(transact {:valid-from \"2024-01-01\"})", "(transact",
       "Transact with options requires a facts vector after the map"},
      {"(transact (:a :b 1))", "(:a", "Transact argument must be a vector of facts"},
      {"(transact [:a :b 1])", ":a",
       "Each fact must be a vector [e a v] or [e a v {opts}], or an entity map {:db/id e :attr v ...}"},
      // Entity maps (README "Schema").
      {"(transact [{:db/id \"t\" :a 1}])", "\"t\"",
       "Invalid entity: :db/id must be a keyword, UUID or integer, got \"t\""},
      {"(transact [{:a 1 \"b\" 2}])", "\"b\"", "Attribute must be a keyword"},
      {"(transact [{:a ?x}])", "?x", "Invalid value: Cannot convert ?x to Value"},
      {"(transact [[:a :b]])", "[:a", "Fact must have at least 3 elements (E A V), got 2"},
      {"(transact [[:a :b 1 :db/valid-from \"2024-01-01\"]])", ":db/valid-from",
       "Optional 4th element of a fact must be a map {:valid-from ... :valid-to ...}, got "
       ":db/valid-from"},
      {"(transact [[:a :b 1 {:valid-until \"2024-01-01\"}]])", ":valid-until",
       "Unknown key in valid-time map: :valid-until; expected :valid-from or :valid-to"},
      {"(transact {:valid-from 2024} [[:a :b 1]])", "2024",
       ":valid-from must be an ISO 8601 string, got 2024"},
      {"(transact [[:a :b 1 {:valid-to :never}]])", ":never",
       ":valid-to must be an ISO 8601 string, got :never"},
      {"(transact [[:a :b 1 {:valid-from \"2024-01-01T00:00:00+02:00\"}]])", "\"2024",
       "timezone offsets are not supported; use UTC (Z) timestamps only, got "
       "'2024-01-01T00:00:00+02:00'"},
      {"(transact [[:a :b 1 {:valid-from \"yesterday\"}]])", "\"yesterday",
       "invalid UTC timestamp 'yesterday'"},
      {"(transact [[\"alice\" :b 1]])", "\"alice",
       "Invalid entity: Expected keyword, UUID or integer for entity, got \"alice\""},
      {"(transact [[1.5 :b 1]])", "1.5",
       "Invalid entity: Expected keyword, UUID or integer for entity, got 1.5"},
      {"(transact [[?e :b 1]])", "?e",
       "Invalid entity: Expected keyword, UUID or integer for entity, got ?e"},
      {"(transact [[:a \"b\" 1]])", "\"b", "Attribute must be a keyword"},
      {"(transact [[:a ?b 1]])", "?b", "Attribute must be a keyword"},
      {"(transact [[:a :b ?v]])", "?v",
       "Invalid value: Cannot convert unbound variable ?v to value"},
      {"(transact [[:a :b [1 2]]])", "[1", "Invalid value: Cannot convert [1 2] to Value"},
      {"(transact [[:a :b $v]])", "$v", "Invalid value: Cannot convert $v to Value"},
      {"(retract)", "(retract", "Retract requires a vector of facts"},
      {"(retract {:a 1})", "{", "Retract argument must be a vector"},
      {"(retract [:a])", ":a", "Each fact must be a vector [e a v]"},
      {"(retract [[:a :b 1 {:valid-to \"2024-01-01\"}]])", "[:a",
       "Pattern must have exactly 3 elements (E A V), got 4"},
      {"(retract [[:a :b]])", "[:a", "Pattern must have exactly 3 elements (E A V), got 2"},
      {"(retract [[\"x\" :b 1]])", "\"x",
       "Invalid entity: Expected keyword, UUID or integer for entity, got \"x\""},
  });
}

TEST_CASE("errors: rules (§9)", "[parser][errors][rule]") {
  check_all({
      {"(rule)", "(rule", "Rule must have a body"},
      {"(rule (r ?x))", "(r ?x", "Rule body must be a vector"},
      {"(rule [])", "[]", "Rule body cannot be empty"},
      {"(rule [[?x :a 1]])", "[?x", "Rule head must be a list: (predicate ?args)"},
      {"(rule [() [?x :a 1]])", "()", "Rule head cannot be empty"},
      {"(rule [(:r ?x) [?x :a 1]])", ":r", "Rule head must start with a symbol (predicate name)"},
      {"(rule [(?r ?x) [?x :a 1]])", "?r", "Rule head must start with a symbol (predicate name)"},
      {"(rule [(r ?x)])", "[(r", "Rule must have at least one pattern or rule invocation in body"},
      {"(rule [(not ?x) [?x :a 1]])", "not",
       "Rule name 'not' is reserved: it is a built-in form or function"},
      {"(rule [(matches? ?x) [?x :a 1]])", "matches?",
       "Rule name 'matches?' is reserved: it is a built-in form or function"},
      {"(rule [(r $x) [?x :a 1]])", "$x",
       "Rule head argument must be a variable or a constant, got $x"},
      {"(rule [(r [?x]) [?x :a 1]])", "[?x]",
       "Rule head argument must be a variable or a constant, got [?x]"},
      {"(rule [(r ?x) \"str\"])", "\"str",
       "Rule body clause must be a vector (pattern) or list (rule invocation / not), got \"str\""},
  });
}

TEST_CASE("errors: query sections (§6, §12, §17)", "[parser][errors][query]") {
  const std::string w = " :where [?x :a 1]";
  check_all({
      {"(query)", "(query", "Query requires a map argument"},
      {"(query {:find [?x]})", "{", "Query argument must be a vector"},
      {"(query [?x :find ?x])", "?x", "Unexpected element in query: ?x"},
      {"(query [:find ?x :where [?x :a 1] :limit 10])", "10", "Unexpected element in query: 10"},
      {"(query [:find 42" + w + "])", "42",
       "Expected variable or aggregate expression in :find clause, got 42"},
      {"(query [:find ?x :where ?x])", "?x",
       "Expected pattern vector or rule invocation in :where "
       "clause, got ?x",
       2},
      {"(query [:find ?x :with 42" + w + "])", "42",
       "':with' clause accepts only variables, got 42"},
      {"(query [:find ?x" + w + " :as-of])", ":as-of", ":as-of requires a value"},
      {"(query [:find ?x" + w + " :as-of -1])", "-1",
       ":as-of counter must be non-negative, got -1"},
      {"(query [:find ?x" + w + " :as-of :now])", ":now",
       ":as-of must be an integer (counter) or ISO 8601 string, got :now"},
      {"(query [:find ?x" + w + " :as-of \"2024-01-01+01:00\"])", "\"2024",
       "timezone offsets are not supported; use UTC (Z) timestamps only, got '2024-01-01+01:00'"},
      {"(query [:find ?x" + w + " :valid-at])", ":valid-at", ":valid-at requires a value"},
      {"(query [:find ?x" + w + " :valid-at 5])", "5]",
       ":valid-at must be an ISO 8601 string or :any-valid-time, got 5"},
      {"(query [:find ?x" + w + " :valid-at :now])", ":now",
       ":valid-at must be an ISO 8601 string or :any-valid-time, got :now"},
      {"(query [:find ?x" + w + " :valid-at \"2024-02-30\"])", "\"2024",
       "invalid date '2024-02-30'"},
      {"(query [:find ?x" + w + " :max-results 0])", "0]", ":max-results must be >= 1"},
      {"(query [:find ?x" + w + " :max-results -5])", "-5", ":max-results must be >= 1"},
      {"(query [:find ?x" + w + " :max-results \"10\"])", "\"10",
       ":max-results must be a positive integer"},
      {"(query [:find ?x" + w + " :max-results 1 :max-results 2])", ":max-results",
       "duplicate :max-results", 2},
      {"(query [:find ?x" + w + " :max-derived-facts])", ":max-derived-facts",
       ":max-derived-facts requires a value"},
      {"(query [:find ?x" + w + " :max-derived-facts 1.5])", "1.5",
       ":max-derived-facts must be a positive integer"},
      {"(query [:find ?x" + w + " :max-derived-facts 0])", "0]", ":max-derived-facts must be >= 1"},
      {"(query [:find ?x :max-derived-facts 3" + w + " :max-derived-facts 4])",
       ":max-derived-facts", "duplicate :max-derived-facts", 2},
      {"(query [:find ?x :in 42" + w + "])", "42",
       ":in accepts ?x, [?a ?b], [?x ...] or [[?a ?b]], got 42"},
      {"(query [:find ?x :in [?a 1]" + w + "])", "[?a",
       ":in accepts ?x, [?a ?b], [?x ...] or [[?a ?b]], got [?a 1]"},
      {"(query [:find ?x :in []" + w + "])", "[]",
       ":in accepts ?x, [?a ?b], [?x ...] or [[?a ?b]], got []"},
      {"(query [:find ?x :in $src" + w + "])", "$src",
       ":in accepts ?x, [?a ?b], [?x ...] or [[?a ?b]], got $src"},
  });
}

TEST_CASE("errors: aggregates, windows and pull in :find (§14)", "[parser][errors][find]") {
  const auto find = [](const std::string& element) {
    return "(query [:find " + element + " :where [?x :a ?s]])";
  };
  check_all({
      {find("(count)"), "(count)",
       "Aggregate expression must have exactly 2 elements (func ?var), got 1"},
      {find("(count ?x ?s)"), "(count",
       "Aggregate expression must have exactly 2 elements (func ?var), got 3"},
      {find("(\"count\" ?x)"), "\"count",
       "Aggregate function name must be a symbol, got \"count\""},
      {find("(rank ?x)"), "rank",
       "'rank' is a window function and requires an ':over (...)' clause"},
      {find("(row-number ?x)"), "row-number",
       "'row-number' is a window function and requires an ':over (...)' clause"},
      {find("(lag ?x)"), "lag", "'lag' is a window function and requires an ':over (...)' clause"},
      {find("(count :x)"), ":x", "Aggregate argument must be a variable (starting with ?)"},
      {find("(count-distinct ?s :over (:order-by ?s))"), "count-distinct",
       "'count-distinct' is not window-compatible and cannot be used with ':over'"},
      {find("(sum-distinct ?s :over (:order-by ?s))"), "sum-distinct",
       "'sum-distinct' is not window-compatible and cannot be used with ':over'"},
      {find("(lag :over (:order-by ?s))"), "(lag",
       "'lag' requires a variable argument (starting with ?) before ':over'"},
      {find("(rank ?s :over (:order-by ?s))"), "(rank",
       "'rank' requires ':over' immediately after the function name (no variable argument)"},
      {find("(sum ?s :foo :over (:order-by ?s))"), "(sum",
       "'sum' requires ':over' after the variable argument"},
      {find("(sum ?s :over (:order-by ?s) :extra)"), "(sum",
       "unexpected tokens after ':over' clause in window expression"},
      {find("(sum ?s :over)"), "(sum",
       "unexpected tokens after ':over' clause in window expression"},
      {find("(sum ?s :over [:order-by ?s])"), "[:order-by",
       "':over' must be followed by a list, e.g., (:order-by ?var)"},
      {find("(sum ?s :over (:partition-by :d :order-by ?s))"), ":partition-by",
       "':partition-by' requires a variable (starting with ?)"},
      {find("(sum ?s :over (:order-by))"), ":order-by",
       "':order-by' requires a variable (starting with ?)"},
      {find("(sum ?s :over (:order-by ?s :limit))"), ":limit",
       "unknown option in ':over' clause: ':limit'"},
      {find("(sum ?s :over (:order-by ?s ?x))"), "?x", "unexpected element in ':over' clause: ?x"},
      {find("(sum ?s :over ())"), "()", "':order-by' is required in the ':over' clause"},
      {find("(sum ?s :over (:desc :partition-by ?x))"), "(:desc",
       "':order-by' is required in the ':over' clause"},
      {find("(:sum ?s :over (:order-by ?s))"), ":sum", "window function name must be a symbol"},
      {find("(pull ?e)"), "(pull", "pull must be written (pull ?e [attribute ...]), got (pull ?e)"},
      {find("(pull :e [*])"), "(pull",
       "pull must be written (pull ?e [attribute ...]), got (pull :e [*])"},
      {find("(pull ?e :name)"), "(pull",
       "pull must be written (pull ?e [attribute ...]), got (pull ?e :name)"},
  });
}

TEST_CASE("errors: patterns, pseudo-attributes and slots (§7, §13, §15)", "[parser][errors]") {
  check_all({
      {where("[?x :a]"), "[?x :a]", "Pattern must have exactly 3 elements (E A V), got 2"},
      {where("[?x :a 1 2]"), "[?x :a 1 2]", "Pattern must have exactly 3 elements (E A V), got 4"},
      {where("[]"), "[]", "Pattern must have exactly 3 elements (E A V), got 0"},
      {where("[:db/valid-from :a ?v]"), ":db/valid-from",
       "pseudo-attribute :db/valid-from is not valid in entity position"},
      {where("[:db/valid-at :a ?v]"), ":db/valid-at",
       "pseudo-attribute :db/valid-at is not valid in entity position"},
      {where("[?e :a :db/tx-id]"), ":db/tx-id",
       "pseudo-attribute :db/tx-id is not valid in value position"},
      {where("[?e :a :db/tx-count]"), ":db/tx-count",
       "pseudo-attribute :db/tx-count is not valid in value position"},
      {where("[?e $attr ?v]"), "$attr",
       "bind slot '$attr' is not permitted in attribute position; the query optimizer selects an "
       "index based on the attribute at prepare time and cannot handle a parameterised attribute"},
      {where("[?e :a foo]"), "foo",
       "Pattern element must be a variable, a constant or a $slot, got foo"},
      {where("[?e :a [1]]"), "[1]",
       "Pattern element must be a variable, a constant or a $slot, got [1]"},
      {where("[$ :a 1]"), "$ ", "Bind slot '$' must be followed by an identifier (e.g. $entity)"},
  });
}

TEST_CASE("errors: expression clauses (§8, get-else, missing?, ground)", "[parser][errors][expr]") {
  check_all({
      {where("[(> ?v 1) ?b ?c]"), "[(>",
       "expression clause must be [(expr)] or [(expr) ?out], got 3 elements"},
      {where("[(+ ?v 1) b]"), "b]", "expression output must be a ?variable, got b"},
      {where("[(+ ?v 1) :b]"), ":b]", "expression output must be a ?variable, got :b"},
      {where("[()]"), "()", "expression list cannot be empty"},
      {where("[(1 2)]"), "1 2", "expression head must be a symbol, got 1"},
      {where("[(> ?v)]"), "(>", "> takes exactly 2 arguments"},
      {where("[(starts-with? ?v \"a\" \"b\")]"), "(starts",
       "starts-with? takes exactly 2 arguments"},
      {where("[(string? ?v ?x)]"), "(string?", "string? takes exactly 1 argument"},
      {where("[(matches? ?v ?x)]"), "?x)", "matches? second argument must be a string literal"},
      {where("[(matches? ?v)]"), "(matches?", "matches? takes exactly 2 arguments"},
      {where("[(matches? ?v \"a(b\")]"), "\"a(b", "invalid regex pattern 'a(b': missing ): a(b"},
      {where("[(> ?v [1])]"), "[1]", "unsupported expression argument: [1]"},
      {where("[(> ?v foo)]"), "foo", "unsupported expression argument: foo"},
      {where("[(> ?v _)]"), "_)", "unsupported expression argument: _"},
      {where("[(> ?v $)]"), "$)", "Bind slot '$' must be followed by an identifier (e.g. $entity)"},
      {where("[(get-else ?x :b) ?w]"), "(get-else",
       "get-else takes exactly 3 arguments: (get-else ?e :attr default)"},
      {where("[(get-else $ ?x :b 0 1) ?w]"), "(get-else",
       "get-else takes exactly 3 arguments: (get-else ?e :attr default)"},
      {where("[(get-else ?x :b 0)]"), "[(get-else",
       "get-else must bind its result: [(get-else ?e :attr default) ?v]"},
      {where("[(get-else ?x \"b\" 0) ?w]"), "\"b",
       "get-else attribute must be a keyword, got \"b\""},
      {where("[(missing? ?x)]"), "(missing?",
       "missing? takes exactly 2 arguments: (missing? ?e :attr)"},
      {where("[(missing? $ ?x ?v)]"), "?v)", "missing? attribute must be a keyword, got ?v"},
      {where("[(ground) ?w]"), "(ground", "ground takes exactly 1 argument"},
      {where("[(ground 1)]"), "[(ground", "ground must bind its result: [(ground 42) ?x]"},
      {where("[(ground ?v) ?w]"), "?v)", "ground takes a constant or a $slot, got ?v"},
      {where("[(> (get-else ?x :b 0) 1)]"), "(get-else",
       "get-else cannot be nested inside another expression; bind it in its own clause first"},
  });
}

TEST_CASE("errors: a function written without [ ] in :where says how to write it",
          "[parser][errors][expr]") {
  check_all({
      {where("(matches? ?v \"^A\")"), "(matches?",
       "(matches? ?v \"^A\") is a function call, not a rule invocation: write it in brackets, "
       "[(matches? ?v \"^A\")]"},
      {where("(< ?v 3)"), "(<",
       "(< ?v 3) is a function call, not a rule invocation: write it in brackets, [(< ?v 3)]"},
      {where("(get-else ?x :b 0)"), "(get-else",
       "(get-else ?x :b 0) is a function call, not a rule invocation: write it in brackets, "
       "[(get-else ?x :b 0)]"},
      {"(rule [(r ?x) [?x :a ?s] (starts-with? ?s \"a\")])", "(starts-with?",
       "(starts-with? ?s \"a\") is a function call, not a rule invocation: write it in brackets, "
       "[(starts-with? ?s \"a\")]"},
      {where("(or [?x :b 1] (string? ?v))"), "(string?",
       "(string? ?v) is a function call, not a rule invocation: write it in brackets, "
       "[(string? ?v)]"},
  });
}

TEST_CASE("errors: rule calls and list clauses (§9)", "[parser][errors]") {
  check_all({
      {where("()"), "()", "Empty list in :where clause"},
      {where("(42 ?x)"), "42", "Rule invocation must start with predicate name (symbol), got 42"},
      {where("(?r ?x)"), "?r", "Rule invocation must start with predicate name (symbol), got ?r"},
      {where("(and [?x :a 1])"), "(and",
       "(and ...) is only allowed as a branch of (or ...) or (or-join ...)"},
      {where("(r ?x [1])"), "[1]",
       "Rule invocation argument must be a variable, a constant or a $slot, got [1]"},
      {where("(r foo)"), "foo",
       "Rule invocation argument must be a variable, a constant or a $slot, got foo"},
  });
}

TEST_CASE("errors: not and not-join (§10)", "[parser][errors][not]") {
  check_all({
      {where("(not)"), "(not)", "(not) requires at least one clause"},
      {where("(not (not [?x :b 1]))"), "(not [",
       "(not ...) cannot appear inside another (not ...)"},
      {where("(not (not-join [?x] [?x :b 1]))"), "(not-join",
       "(not-join ...) cannot appear inside another (not ...) or (not-join ...)"},
      {where("(not-join [?x] (not [?x :b 1]))"), "(not [",
       "(not ...) cannot appear inside another (not ...)"},
      {where("(not (or [?x :b 1] [?x :c 1]))"), "(or",
       "(or)/(or-join) cannot appear inside (not)/(not-join)"},
      {where("(not-join [?x] (or-join [?x] [?x :b 1]))"), "(or-join",
       "(or)/(or-join) cannot appear inside (not)/(not-join)"},
      {where("(not \"x\")"), "\"x", "expected pattern or rule invocation inside (not), got \"x\""},
      {where("(not-join [?x] 42)"), "42",
       "expected pattern or rule invocation inside (not-join), got 42"},
      {where("(not-join [?x])"), "(not-join",
       "(not-join) requires a join-vars vector and at least one clause"},
      {where("(not-join ?x [?x :b 1])"), "?x [",
       "(not-join) first argument must be a vector of join variables"},
      {where("(not-join [x] [?x :b 1])"), "x]",
       "(not-join) join variables must be logic variables, got x"},
      {where("(not [?x :b])"), "[?x :b]", "Pattern must have exactly 3 elements (E A V), got 2"},
  });
}

TEST_CASE("errors: or, or-join and and (§11)", "[parser][errors][or]") {
  check_all({
      {where("(or)"), "(or)", "(or) requires at least one branch"},
      {where("(or-join [?x])"), "(or-join",
       "(or-join) requires a join-vars vector and at least one branch"},
      {where("(or-join (?x) [?x :b 1])"), "(?x)",
       "(or-join) first argument must be a vector of join variables"},
      {where("(or-join [:x] [?x :b 1])"), ":x]",
       "(or-join) join variables must be logic variables, got :x"},
      {where("(or (and) [?x :b 1])"), "(and)",
       "(and) inside or/or-join requires at least one clause"},
      {where("(or 42 [?x :b 1])"), "42", "expected clause inside or branch, got 42"},
      {where("(or (and [?x :b 1] (and [?x :c 1])))"), "(and [?x :c",
       "(and ...) is only allowed as a branch of (or ...) or (or-join ...)"},
      {where("(or [?x :b 1] [?x :c])"), "[?x :c]",
       "Pattern must have exactly 3 elements (E A V), got 2"},
  });
}

TEST_CASE("errors: positions follow lines, long elements are cut", "[parser][errors]") {
  CHECK(testing::parse_message(
            "(query [:find ?x\n        :where [?x :a 1]\n               [?x :b]])") ==
        "parse error at line 3, column 16: Pattern must have exactly 3 elements (E A V), got 2");
  const std::string long_string(100, 'z');
  CHECK(testing::parse_message("(transact [[\"" + long_string + "\" :a 1]])") ==
        "parse error at line 1, column 13: Invalid entity: Expected keyword, UUID or integer for "
        "entity, got \"" +
            std::string(56, 'z') + "...");
  // The reader's errors come first: nothing is parsed from a script that does not read.
  CHECK(testing::parse_message("(transact [[:a :b 1]]) (query [:find ?x") ==
        "parse error at line 1, column 31: Unclosed vector");
}

}  // namespace
}  // namespace datalog
