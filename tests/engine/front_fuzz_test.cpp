// Randomized robustness of the front end: thousands of mutated, truncated and garbage scripts
// (seeded, so a failure reproduces) must never crash, throw or hang; every error is an
// InvalidArgument "parse error at line L, column C: ..."; everything that parses also analyzes
// without crashing and prints to a canonical text that parses back to itself.
// Run it under ASan/UBSan: cmake -S . -B build-front-asan -DDATALOG_SANITIZE=ON.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/analyzer.h"
#include "engine/ast_text.h"
#include "engine/parser.h"

namespace datalog {
namespace {

const std::vector<std::string> kSeeds = {
    R"((transact [[:alice :person/name "Alice"] [:alice :person/age 30] [42 :follows 17]
                  [#uuid "550e8400-e29b-41d4-a716-446655440000" :score 1.5 {:valid-to "2030-01-01"}]]))",
    R"((transact {:valid-from "2024-01-01T10:00:00.125Z"} [[:a :b nil] [:a :c true] [:a :d #inst "2024-02-03"]]))",
    "(retract [[:alice :person/age 30] [7 :tag \"x\\\"y\"]])",
    "(rule [(reach ?a ?b) [?a :follows ?b]])\n(rule [(reach ?a ?b) [?a :follows ?x] (reach ?x "
    "?b)])",
    "(rule [(ok ?p) [?p :age ?a] [(>= ?a 18)] (not (banned ?p)) (or [?p :x 1] (and [?p :y ?z] "
    "[(> ?z 2)])) (or-join [?p] [?p :z ?q])]) (rule [(banned ?p) [?p :flag :banned]])",
    R"((query [:find ?n (count ?e) (sum ?s :over (:partition-by ?d :order-by ?s :desc))
               (rank :over (:order-by ?s)) (pull ?e [:name {:friends [*]}])
               :with ?w :in $ ?x [?a ?b] [?c ...] [[?d ?f]]
               :where [?e :name ?n] [?e :salary ?s] [?e :dept ?d] [?e :w ?w]
                      [(str ?n "-" (+ ?x 1)) ?t] (or-join [?e] [?e :a $v] (reach ?e "k"))
               :as-of "2024-01-01" :valid-at $t :max-results 10 :max-derived-facts 5]))",
    "(query [:find ?x ?v :where [?x :name _] [(get-else $ ?x :age 0) ?v] [(missing? ?x :c)] "
    "[(ground 42) ?g] [(matches? ?n \"^A\")] (not-join [?x] [?x :tag ?t] [?t :bad true]) "
    ":any-valid-time :as-of $tx]) ; trailing comment",
    "(query [:find ?e ?vf :any-valid-time :where [?e :db/valid-from ?vf] [?e :k :com.example/v]])",
};

// Fragments that steer mutations toward the parser's interesting paths.
const std::vector<std::string> kTokens = {
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "\"",
    ";",
    ":",
    "#uuid",
    "#inst",
    "#",
    "$",
    "$x",
    "...",
    "?x",
    "?_",
    "_",
    "not",
    "not-join",
    "or",
    "or-join",
    "and",
    ":where",
    ":find",
    ":in",
    ":with",
    ":as-of",
    ":valid-at",
    ":over",
    "rank",
    "count",
    "pull",
    "get-else",
    "missing?",
    "ground",
    "matches?",
    "<",
    "!=",
    "-",
    "1.",
    "-0",
    "99999999999999999999",
    "\\",
    ",",
    "\n",
    "\t",
    "query",
    "rule",
    "transact",
    "retract",
    ":db/valid-from",
    "nil",
    "true",
    "1.5",
    "\"2024-01-01\"",
    "\xff",
    "\xc3\xa9",
    std::string(1, '\0'),
    "(query [:find ?x :where [?x :a 1]])",
};

std::string mutate(std::string s, std::mt19937_64& rng) {
  const auto pick = [&](std::size_t n) {
    return static_cast<std::size_t>(rng() % (n == 0 ? 1 : n));
  };
  const int edits = 1 + static_cast<int>(rng() % 6);
  for (int k = 0; k < edits; ++k) {
    switch (rng() % 6) {
      case 0:  // insert a token
        s.insert(pick(s.size() + 1), kTokens[pick(kTokens.size())]);
        break;
      case 1:  // delete a range
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          s.erase(at, 1 + pick(8));
        }
        break;
      case 2:  // flip a byte
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(rng());
        break;
      case 3:  // truncate
        s.resize(pick(s.size() + 1));
        break;
      case 4: {  // duplicate a slice
        if (!s.empty()) {
          const std::size_t at = pick(s.size());
          s.insert(pick(s.size() + 1), s.substr(at, 1 + pick(20)));
        }
        break;
      }
      default:  // replace a byte by a token
        if (!s.empty()) s.replace(pick(s.size()), 1, kTokens[pick(kTokens.size())]);
    }
  }
  return s;
}

std::string garbage(std::mt19937_64& rng) {
  std::string s;
  const std::size_t n = rng() % 200;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 3 == 0) {
      s += kTokens[rng() % kTokens.size()];
    } else {
      s.push_back(static_cast<char>(rng()));
    }
  }
  return s;
}

struct Tally {
  int parsed = 0;
  int rejected = 0;
};

// Everything the front end offers, on one input. Nothing here may crash; properties are checked.
void exercise(const std::string& text, Tally* tally) {
  std::vector<ast::Command> commands;
  const Status st = parse_script(text, &commands);
  if (!st.ok()) {
    ++tally->rejected;
    INFO(text);
    CHECK(st.code() == StatusCode::InvalidArgument);
    CHECK(st.message().rfind("parse error at line ", 0) == 0);
    CHECK(commands.empty());
    return;
  }
  ++tally->parsed;
  std::vector<ast::Rule> rules;
  for (const auto& c : commands) {
    if (const auto* r = std::get_if<ast::Rule>(&c)) rules.push_back(*r);
  }
  std::vector<std::vector<std::string>> strata;
  (void)check_rule_set(rules);
  (void)stratify(rules, &strata);
  std::string once;
  for (const auto& c : commands) {
    const Status checked = check_command(c);
    if (!checked.ok()) CHECK(checked.code() == StatusCode::InvalidArgument);
    if (const auto* q = std::get_if<ast::QueryCommand>(&c)) (void)check_rule_calls(q->query, rules);
    once += format_command(c) + "\n";
  }
  // The canonical text parses, and to itself.
  std::vector<ast::Command> again;
  const Status reparsed = parse_script(once, &again);
  INFO(text << "\n=> " << once << "\n=> " << reparsed.message());
  REQUIRE(reparsed.ok());
  std::string twice;
  for (const auto& c : again) twice += format_command(c) + "\n";
  CHECK(twice == once);
}

TEST_CASE("fuzz: seeds parse, analyze and print canonically", "[fuzz]") {
  Tally tally;
  for (const auto& seed : kSeeds) exercise(seed, &tally);
  CHECK(tally.parsed == static_cast<int>(kSeeds.size()));
}

TEST_CASE("fuzz: every prefix of every seed", "[fuzz]") {
  Tally tally;
  for (const auto& seed : kSeeds) {
    for (std::size_t n = 0; n <= seed.size(); ++n) exercise(seed.substr(0, n), &tally);
  }
  CHECK(tally.rejected > 0);
}

TEST_CASE("fuzz: mutated seeds never crash", "[fuzz]") {
  std::mt19937_64 rng(0xDA7A106);
  Tally tally;
  for (int i = 0; i < 20000; ++i) {
    std::string text = kSeeds[rng() % kSeeds.size()];
    if (rng() % 4 == 0) text += "\n" + kSeeds[rng() % kSeeds.size()];
    exercise(mutate(std::move(text), rng), &tally);
  }
  // Both paths were exercised, not only one.
  CHECK(tally.parsed > 500);
  CHECK(tally.rejected > 5000);
}

TEST_CASE("fuzz: garbage never crashes", "[fuzz]") {
  std::mt19937_64 rng(0x6A5BA6E);
  Tally tally;
  for (int i = 0; i < 5000; ++i) exercise(garbage(rng), &tally);
  CHECK(tally.rejected > 0);
}

TEST_CASE("fuzz: deep and wide inputs stay within limits", "[fuzz]") {
  Tally tally;
  exercise(std::string(200000, '['), &tally);
  exercise(std::string(200000, ']'), &tally);
  exercise("(query [:find ?x :where " + std::string(90, '(') + "or [?x :a 1]" +
               std::string(90, ')') + "])",
           &tally);
  std::string wide = "(transact [";
  for (int i = 0; i < 20000; ++i)
    wide += "[:e" + std::to_string(i) + " :a " + std::to_string(i) + "]";
  exercise(wide + "])", &tally);
  std::string ors = "[?x :a 1]";
  for (int i = 0; i < 95; ++i) ors = "(or " + ors + " [?x :b " + std::to_string(i) + "])";
  exercise("(query [:find ?x :where " + ors + "])", &tally);
  CHECK(tally.parsed >= 2);
}

}  // namespace
}  // namespace datalog
