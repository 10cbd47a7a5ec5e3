// Pull patterns (engine/pull_pattern.h) and the JSON text of pulled values
// (engine/eval/json_text.h). Evaluation is covered by tests/golden/cases/pull.test.
#include "engine/pull_pattern.h"

#include <catch2/catch.hpp>
#include <limits>

#include "engine/eval/json_text.h"

namespace datalog {
namespace {

pull::Pattern parsed(std::string_view text) {
  pull::Pattern p;
  const Status st = pull::parse_pattern_text(text, &p);
  INFO(st.message());
  REQUIRE(st.ok());
  return p;
}

std::string error_of(std::string_view text) {
  pull::Pattern p;
  return pull::parse_pattern_text(text, &p).message();
}

TEST_CASE("pull pattern: elements, reverse names, options", "[pull]") {
  const pull::Pattern p =
      parsed("[* :a/b :_friend :ns/_boss (:n :as \"name\" :limit 2 :default 0) (default :d :kw)]");
  REQUIRE(p.elements.size() == 6);
  CHECK(p.has_wildcard);
  CHECK(p.elements[0].wildcard);
  CHECK(p.elements[1].attribute.attribute == ":a/b");
  CHECK(p.elements[1].attribute.key == ":a/b");
  CHECK(!p.elements[1].attribute.reverse);
  CHECK(p.elements[2].attribute.attribute == ":friend");
  CHECK(p.elements[2].attribute.key == ":_friend");
  CHECK(p.elements[2].attribute.reverse);
  CHECK(p.elements[3].attribute.attribute == ":ns/boss");
  CHECK(p.elements[3].attribute.reverse);
  const pull::AttributeSpec& n = p.elements[4].attribute;
  CHECK(n.key == "name");
  CHECK(n.limit == 2);
  CHECK(n.default_value == Value::integer(0));
  CHECK(p.elements[5].attribute.default_value == Value::keyword(":kw"));
}

TEST_CASE("pull pattern: map specs and recursion", "[pull]") {
  const pull::Pattern p = parsed("[{:friend [:name {:boss [*]}] (:_likes :as :fans) ... :next 3}]");
  REQUIRE(p.elements.size() == 3);
  const pull::AttributeSpec& friend_ = p.elements[0].attribute;
  CHECK(friend_.follow == pull::AttributeSpec::Follow::Pattern);
  REQUIRE(friend_.sub);
  REQUIRE(friend_.sub->elements.size() == 2);
  CHECK(friend_.sub->elements[1].attribute.sub->has_wildcard);
  CHECK(p.elements[1].attribute.follow == pull::AttributeSpec::Follow::Recurse);
  CHECK(!p.elements[1].attribute.max_depth);
  CHECK(p.elements[1].attribute.key == ":fans");
  CHECK(p.elements[2].attribute.max_depth == 3);
}

TEST_CASE("pull pattern: errors are positioned", "[pull]") {
  CHECK(error_of(":a") ==
        "parse error at line 1, column 1: pull pattern: a pattern must be a vector [...], got "
        ":a");
  CHECK(error_of("[:a\n \"b\"]") ==
        "parse error at line 2, column 2: pull pattern: expected an attribute keyword, *, a map "
        "{:attr [...]} or (:attr :option value ...), got \"b\"");
  CHECK(
      error_of("[(:a :as \"x\" :limit)]") ==
      "parse error at line 1, column 14: pull pattern: attribute option :limit needs a value");
  CHECK(error_of("[{:a -1}]") ==
        "parse error at line 1, column 6: pull pattern: the value of :a in a map must be a "
        "pattern [...], ... or a positive recursion limit, got -1");
}

std::string json(const Value& v) {
  std::string out;
  eval::append_json_scalar(out, v);
  return out;
}

TEST_CASE("pull JSON: one text per value kind", "[pull][json]") {
  CHECK(json(Value::string("a\"b\\c\n\x01")) == "\"a\\\"b\\\\c\\n\\u0001\"");
  CHECK(json(Value::integer(-7)) == "-7");
  CHECK(json(Value::floating(1.0)) == "1.0");
  CHECK(json(Value::floating(-0.0)) == "-0.0");
  CHECK(json(Value::floating(0.1)) == "0.1");
  CHECK(json(Value::floating(1e20)) == "1.0e+20");
  CHECK(json(Value::floating(1.5e-20)) == "1.5e-20");
  CHECK(json(Value::floating(std::numeric_limits<double>::infinity())) == "null");
  CHECK(json(Value::boolean(false)) == "false");
  CHECK(json(Value::keyword(":a/b")) == "\":a/b\"");
  CHECK(json(Value::instant(0)) == "\"1970-01-01T00:00:00.000Z\"");
  CHECK(json(Value::bytes(std::string("\x00\xff", 2))) == "\"00ff\"");
  CHECK(json(Value::nil()) == "null");
}

}  // namespace
}  // namespace datalog
