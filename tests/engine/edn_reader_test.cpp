// The EDN subset of LANGUAGE.md §2 (engine/edn_reader.h): every token, positions, limits, errors.
#include "engine/edn_reader.h"

#include <catch2/catch.hpp>
#include <string>

#include "engine/uuid_text.h"

namespace datalog::edn {
namespace {

std::vector<Node> read_ok(std::string_view text) {
  std::vector<Node> forms;
  const Status st = read_forms(text, &forms);
  INFO(text << " -> " << st.message());
  REQUIRE(st.ok());
  return forms;
}

Node read_one(std::string_view text) {
  auto forms = read_ok(text);
  REQUIRE(forms.size() == 1);
  return forms[0];
}

std::string read_error(std::string_view text) {
  std::vector<Node> forms;
  const Status st = read_forms(text, &forms);
  INFO(text);
  REQUIRE_FALSE(st.ok());
  CHECK(st.code() == StatusCode::InvalidArgument);
  CHECK(forms.empty());
  return st.message();
}

TEST_CASE("reader: symbols, variables, wildcards and operators", "[edn]") {
  const Node n = read_one("(?x ?_y _ starts-with? a/b -foo <= >= < > = != + - * / ... $)");
  REQUIRE(n.kind == NodeKind::List);
  const std::vector<std::string> expected = {
      "?x", "?_y", "_", "starts-with?", "a/b", "-foo", "<=", ">=", "<", ">", "=", "!=", "+",
      "-",  "*",   "/", "...",          "$"};
  REQUIRE(n.items.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(n.items[i].kind == NodeKind::Symbol);
    CHECK(n.items[i].text == expected[i]);
  }
  CHECK(n.items[0].is_variable());
  CHECK(n.items[1].is_variable());
  CHECK_FALSE(n.items[2].is_variable());
  CHECK(n.items[2].is_term_variable());
}

TEST_CASE("reader: operators split where Minigraf splits them", "[edn]") {
  // '<' takes one '='; '-' followed by a non-digit starts a symbol; "->" is "-" then ">". A
  // number runs to the end of its token (EDN): "1abc" is no number, not 1 then abc.
  const Node n = read_one("[<== ->]");
  REQUIRE(n.items.size() == 4);
  CHECK(n.items[0].text == "<=");
  CHECK(n.items[1].text == "=");
  CHECK(n.items[2].text == "-");
  CHECK(n.items[3].text == ">");
  CHECK(read_error("[1abc]") == "parse error at line 1, column 2: Invalid number: 1abc");
}

TEST_CASE("reader: keywords may contain '.', '?' and Unicode", "[edn]") {
  const Node n = read_one("[:com.example/name :person/alive? :att?end :?leading : :naïve]");
  REQUIRE(n.items.size() == 6);
  CHECK(n.items[0].text == ":com.example/name");
  CHECK(n.items[1].text == ":person/alive?");
  CHECK(n.items[2].text == ":att?end");
  CHECK(n.items[3].text == ":?leading");
  CHECK(n.items[4].text == ":");
  CHECK(n.items[5].text == ":naïve");
  for (const Node& k : n.items) CHECK(k.kind == NodeKind::Keyword);
}

TEST_CASE("reader: integers, floats and their limits", "[edn]") {
  const Node n = read_one("[0 42 -7 9223372036854775807 -9223372036854775808 1. 3.25 -0.5 2.0]");
  REQUIRE(n.items.size() == 9);
  CHECK(n.items[0].integer == 0);
  CHECK(n.items[1].integer == 42);
  CHECK(n.items[2].integer == -7);
  CHECK(n.items[3].integer == INT64_MAX);
  CHECK(n.items[4].integer == INT64_MIN);
  for (int i = 0; i < 5; ++i) CHECK(n.items[i].kind == NodeKind::Integer);
  CHECK(n.items[5].kind == NodeKind::Float);
  CHECK(n.items[5].floating == 1.0);
  CHECK(n.items[6].floating == 3.25);
  CHECK(n.items[7].floating == -0.5);
  CHECK(n.items[8].kind == NodeKind::Float);
  CHECK(read_error("[9223372036854775808]") ==
        "parse error at line 1, column 2: Integer literal out of range: 9223372036854775808");
  CHECK(read_error("(-9223372036854775809)") ==
        "parse error at line 1, column 2: Integer literal out of range: -9223372036854775809");
}

TEST_CASE("reader: EDN and Clojure number syntax in full", "[edn]") {
  const Node n = read_one("[1e5 1.0e0 1e308 -2.5E-3 1.e5 +7 5N 1.5M 0x1F -0x10 1e-400 -0x8000000000000000]");
  REQUIRE(n.items.size() == 12);
  const double floats[] = {1e5, 1.0, 1e308, -2.5e-3, 1e5};
  for (int i = 0; i < 5; ++i) {
    CHECK(n.items[i].kind == NodeKind::Float);
    CHECK(n.items[i].floating == floats[i]);
  }
  CHECK(n.items[5].integer == 7);
  CHECK(n.items[6].integer == 5);
  CHECK(n.items[6].kind == NodeKind::Integer);
  CHECK(n.items[7].kind == NodeKind::Float);
  CHECK(n.items[7].floating == 1.5);
  CHECK(n.items[8].integer == 31);
  CHECK(n.items[9].integer == -16);
  CHECK(n.items[10].floating == 0.0);  // below the smallest double, as Clojure reads it
  CHECK(n.items[11].integer == INT64_MIN);
  CHECK(read_error("[1e309]") == "parse error at line 1, column 2: Float literal out of range: 1e309");
  CHECK(read_error("[-1e309]") == "parse error at line 1, column 2: Float literal out of range: -1e309");
  CHECK(read_error("[0x8000000000000000]") ==
        "parse error at line 1, column 2: Integer literal out of range: 0x8000000000000000");
  CHECK(read_error("[1e]") == "parse error at line 1, column 2: Invalid number: 1e");
  CHECK(read_error("[1e+]") == "parse error at line 1, column 2: Invalid number: 1e+");
  CHECK(read_error("[12abc]") == "parse error at line 1, column 2: Invalid number: 12abc");
  CHECK(read_error("[1.5N]") == "parse error at line 1, column 2: Invalid number: 1.5N");
  CHECK(read_error("[0x]") == "parse error at line 1, column 2: Invalid number: 0x");
  // + and - alone stay operators.
  const Node ops = read_one("(+ 1 -2)");
  REQUIRE(ops.items.size() == 3);
  CHECK(ops.items[0].text == "+");
  CHECK(ops.items[2].integer == -2);
}

TEST_CASE("reader: strings and escapes", "[edn]") {
  const Node n = read_one(R"(["a\nb" "t\tr\r" "q\"b\\" "\x" "multi
line" ""])");
  REQUIRE(n.items.size() == 6);
  CHECK(n.items[0].text == "a\nb");
  CHECK(n.items[1].text == "t\tr\r");
  CHECK(n.items[2].text == "q\"b\\");
  CHECK(n.items[3].text == "x");
  CHECK(n.items[4].text == "multi\nline");
  CHECK(n.items[5].text.empty());
  for (const Node& s : n.items) CHECK(s.kind == NodeKind::String);
}

TEST_CASE("reader: literals true false nil, #uuid, #inst, slots", "[edn]") {
  const Node n = read_one(
      R"([true false nil #uuid "550E8400-e29b-41d4-a716-446655440000" #inst "2024-01-02" $tx $a-b_1])");
  REQUIRE(n.items.size() == 7);
  CHECK(n.items[0].kind == NodeKind::Boolean);
  CHECK(n.items[0].boolean);
  CHECK_FALSE(n.items[1].boolean);
  CHECK(n.items[2].kind == NodeKind::Nil);
  CHECK(n.items[3].kind == NodeKind::Uuid);
  CHECK(format_uuid(n.items[3].uuid) == "550e8400-e29b-41d4-a716-446655440000");
  CHECK(n.items[4].kind == NodeKind::Instant);
  CHECK(n.items[4].integer == 1704153600000);
  CHECK(n.items[5].kind == NodeKind::Slot);
  CHECK(n.items[5].text == "tx");
  CHECK(n.items[6].text == "a-b_1");
}

TEST_CASE("reader: maps keep key, value order", "[edn]") {
  const Node n = read_one("{:valid-from \"2024-01-01\" :valid-to \"2025-01-01\"}");
  REQUIRE(n.kind == NodeKind::Map);
  REQUIRE(n.items.size() == 4);
  CHECK(n.items[0].text == ":valid-from");
  CHECK(n.items[3].text == "2025-01-01");
}

TEST_CASE("reader: whitespace, commas and comments", "[edn]") {
  const auto forms = read_ok("; leading comment\n(a,b , c) ; trailing\n\t[1,2]\r\n;; end");
  REQUIRE(forms.size() == 2);
  CHECK(forms[0].items.size() == 3);
  CHECK(forms[1].items.size() == 2);
  CHECK(read_ok("").empty());
  CHECK(read_ok("  ;; only a comment").empty());
}

TEST_CASE("reader: positions and source ranges", "[edn]") {
  const std::string text = "(query\n  [:find ?x\n   :where [?x :a \"s\"]])";
  const Node n = read_one(text);
  CHECK(n.pos.line == 1);
  CHECK(n.pos.column == 1);
  CHECK(source_of(text, n) == text);
  const Node& vec = n.items[1];
  CHECK(vec.pos.line == 2);
  CHECK(vec.pos.column == 3);
  const Node& pattern = vec.items[3];
  CHECK(pattern.pos.line == 3);
  CHECK(pattern.pos.column == 11);
  CHECK(source_of(text, pattern) == "[?x :a \"s\"]");
  CHECK(source_of(text, pattern.items[2]) == "\"s\"");
  // Columns count bytes: 'é' is two.
  const Node u = read_one("[\"é\" ?x]");
  CHECK(u.items[1].pos.column == 7);
}

TEST_CASE("reader: nesting up to 100 levels, not 101", "[edn]") {
  const auto nest = [](int depth) {
    return std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']');
  };
  CHECK(read_ok(nest(100)).size() == 1);
  CHECK(read_error(nest(101)) ==
        "parse error at line 1, column 101: Exceeded maximum recursion depth of 100");
  CHECK(read_error(std::string(100000, '(')) ==
        "parse error at line 1, column 101: Exceeded maximum recursion depth of 100");
}

TEST_CASE("reader: length limits of strings, keywords, symbols, slots and tags", "[edn]") {
  const std::string mib(kMaxStringBytes, 'x');
  CHECK(read_one("\"" + mib + "\"").text.size() == kMaxStringBytes);
  CHECK(read_error("[\"" + mib + "x\"]") ==
        "parse error at line 1, column 2: String exceeds maximum length of 1048576 bytes");

  const std::string name(1023, 'k');
  CHECK(read_one(":" + name).text.size() == 1024);
  CHECK(read_error(":" + name + "k") ==
        "parse error at line 1, column 1: Keyword exceeds maximum length of 1024 bytes");
  CHECK(read_one("s" + name).text.size() == 1024);
  CHECK(read_error("s" + name + "s") ==
        "parse error at line 1, column 1: Symbol exceeds maximum length of 1024 bytes");
  CHECK(read_one("$" + name + "k").text.size() == 1024);
  CHECK(read_error("$" + name + "kk") ==
        "parse error at line 1, column 1: Bind slot name exceeds maximum length of 1024 bytes");
  CHECK(read_error("#" + name + "kk") ==
        "parse error at line 1, column 1: Tagged literal exceeds maximum length of 1024 bytes");
}

TEST_CASE("reader: errors carry Minigraf's wording and the position", "[edn]") {
  CHECK(read_error("(query [:find ?x]") == "parse error at line 1, column 1: Unclosed list");
  CHECK(read_error("\n  [1 2") == "parse error at line 2, column 3: Unclosed vector");
  CHECK(read_error("{:a 1") == "parse error at line 1, column 1: Unterminated map: missing '}'");
  CHECK(read_error("{:a}") == "parse error at line 1, column 4: Unexpected token: }");
  CHECK(read_error("(a])") == "parse error at line 1, column 3: Unexpected token: ]");
  CHECK(read_error(")") == "parse error at line 1, column 1: Unexpected token: )");
  CHECK(read_error("[:com.example .x]") ==
        "parse error at line 1, column 15: Unexpected character: .");
  CHECK(read_error("[a ! b]") == "parse error at line 1, column 4: Unexpected character: !");
  CHECK(read_error("[a @b]") == "parse error at line 1, column 4: Unexpected character: @");
  CHECK(read_error("[a \x01]") == "parse error at line 1, column 4: Unexpected character: \\x01");
  CHECK(read_error("# text") == "parse error at line 1, column 1: Unknown tagged literal: #");
  CHECK(read_error("#foo \"x\"") ==
        "parse error at line 1, column 1: Unknown tagged literal: #foo");
  CHECK(read_error("[#uuid \"nope\"]") == "parse error at line 1, column 2: Invalid UUID");
  CHECK(read_error("[#uuid 42]") ==
        "parse error at line 1, column 2: Expected UUID string after #uuid tag");
  CHECK(read_error("#uuid") ==
        "parse error at line 1, column 1: Expected UUID string after #uuid tag");
  CHECK(read_error("#inst :x") ==
        "parse error at line 1, column 1: Expected ISO 8601 string after #inst tag");
  CHECK(read_error("#inst \"2024-13-01\"") ==
        "parse error at line 1, column 1: invalid date '2024-13-01'");
  CHECK(read_error("#inst \"2024-01-01T00:00:00+01:00\"") ==
        "parse error at line 1, column 1: timezone offsets are not supported; use UTC (Z) "
        "timestamps only, got '2024-01-01T00:00:00+01:00'");
  CHECK(read_error("[\"abc") ==
        "parse error at line 1, column 2: Unterminated string: missing closing quote");
  CHECK(read_error("[\"abc\\") ==
        "parse error at line 1, column 2: Unterminated string: missing closing quote");
  CHECK(read_error("[1.2.3]") == "parse error at line 1, column 2: Invalid number: 1.2.3");
  CHECK(read_error("(a\n b\xff)") == "parse error at line 2, column 3: Invalid UTF-8 in input");
  CHECK(read_error("\xc0\x80") == "parse error at line 1, column 1: Invalid UTF-8 in input");
  CHECK(read_error("\xed\xa0\x80") == "parse error at line 1, column 1: Invalid UTF-8 in input");
}

}  // namespace
}  // namespace datalog::edn
