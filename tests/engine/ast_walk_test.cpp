// The walk over a body's clauses (engine/ast_walk.h): order, the negation flag, early stop on
// an error, and rewriting in place.
#include "engine/ast_walk.h"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/ast_text.h"
#include "engine/script_runner.h"

namespace datalog {
namespace {

ast::Query query_of(const std::string& text) {
  ast::Query q;
  const Status st = parse_query(text, &q);
  INFO(st.message());
  REQUIRE(st.ok());
  return q;
}

constexpr const char* kNested =
    "(query [:find ?a :where [?a :p ?b] (or (and [?b :q ?c] (not [?c :r 1])) [?b :s ?c]) "
    "(not [?a :t 2] [?a :u 3]) [(> ?b 0)]])";

TEST_CASE("ast walk: every clause once, depth first in written order, negation marked", "[walk]") {
  const ast::Query q = query_of(kNested);
  std::vector<std::string> seen;
  ast::walk_clauses(q.where, [&](const ast::Clause& c, bool negated) {
    seen.push_back((negated ? "not: " : "") + format_clause(c).substr(0, 12));
  });
  for (const auto& s : seen) INFO(s);
  REQUIRE(seen.size() == 10);
  CHECK(seen[0] == "[?a :p ?b]");
  CHECK(seen[1].rfind("(or ", 0) == 0);
  CHECK(seen[2] == "[?b :q ?c]");
  CHECK(seen[3].rfind("(not ", 0) == 0);
  CHECK(seen[4] == "not: [?c :r 1]");
  CHECK(seen[5] == "[?b :s ?c]");
  CHECK(seen[6].rfind("(not ", 0) == 0);
  CHECK(seen[7] == "not: [?a :t 2]");
  CHECK(seen[8] == "not: [?a :u 3]");
  CHECK(seen[9].rfind("[(> ?b 0)]", 0) == 0);
}

TEST_CASE("ast walk: a visit that returns an error stops the walk with it", "[walk]") {
  const ast::Query q = query_of(kNested);
  int visited = 0;
  const Status st = ast::walk_clauses(q.where, [&](const ast::Clause& c) -> Status {
    ++visited;
    if (std::holds_alternative<ast::Or>(c.node)) return Status(StatusCode::InvalidArgument, "stop at or");
    return Status::OK();
  });
  CHECK(st.code() == StatusCode::InvalidArgument);
  CHECK(st.message() == "stop at or");
  CHECK(visited == 2);  // the pattern, then the or: nothing inside it, nothing after
}

TEST_CASE("ast walk: terms of patterns and rule calls are rewritten in place, nested too", "[walk]") {
  ast::Query q = query_of("(query [:find ?a :where [?a :p ?b] (not (r ?b ?a))])");
  ast::walk_clauses(q.where, [](ast::Clause& c) {
    ast::for_each_term(c, [](ast::Term& t) {
      if (const auto* v = std::get_if<ast::Variable>(&t); v && v->name == "?b") t = Value::integer(7);
    });
  });
  std::vector<std::string> texts;
  for (const auto& c : q.where) texts.push_back(format_clause(c));
  CHECK(texts == std::vector<std::string>{"[?a :p 7]", "(not (r 7 ?a))"});
}

}  // namespace
}  // namespace datalog
