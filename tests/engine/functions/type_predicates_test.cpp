// Type predicates, not, identity.
#include "test_support.h"

using namespace fntest;

namespace {
const std::vector<Value>& one_of_each() {
  static const std::vector<Value> values = {S("s"), I(1), F(1.5),  B(true),    T(0),
                                            R(1),   U(1), K(":k"), Bytes("b"), Nil()};
  return values;
}
}  // namespace

TEST_CASE("each type predicate is true for exactly its kind and returns a Boolean") {
  const std::vector<std::pair<const char*, datalog::ValueKind>> predicates = {
      {"string?", datalog::ValueKind::String}, {"integer?", datalog::ValueKind::Integer},
      {"float?", datalog::ValueKind::Float},   {"boolean?", datalog::ValueKind::Boolean},
      {"nil?", datalog::ValueKind::Nil},       {"keyword?", datalog::ValueKind::Keyword},
      {"ref?", datalog::ValueKind::Ref},       {"instant?", datalog::ValueKind::Instant},
      {"uuid?", datalog::ValueKind::Uuid}};
  for (const auto& [name, kind] : predicates) {
    for (const Value& v : one_of_each()) {
      INFO(name << " " << v.to_edn());
      CHECK(ok(name, {v}) == B(v.is(kind)));
    }
  }
}

TEST_CASE("type predicates are strict about numbers") {
  CHECK(ok("integer?", {F(1.0)}) == B(false));
  CHECK(ok("float?", {I(1)}) == B(false));
  CHECK(ok("boolean?", {I(0)}) == B(false));
  CHECK(ok("string?", {K(":a")}) == B(false));
  CHECK(ok("nil?", {B(false)}) == B(false));
}

TEST_CASE("not negates the dialect's truthiness") {
  CHECK(ok("not", {B(true)}) == B(false));
  CHECK(ok("not", {B(false)}) == B(true));
  CHECK(ok("not", {I(0)}) == B(true));
  CHECK(ok("not", {I(3)}) == B(false));
  CHECK(ok("not", {F(0.0)}) == B(true));
  CHECK(ok("not", {Nil()}) == B(true));
  CHECK(ok("not", {S("x")}) == B(true));
  CHECK(ok("not", {K(":x")}) == B(true));
}

TEST_CASE("identity returns its argument unchanged") {
  for (const Value& v : one_of_each()) CHECK(ok("identity", {v}) == v);
}
