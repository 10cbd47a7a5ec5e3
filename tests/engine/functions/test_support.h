// Shorthands for the function tests: Value constructors, calling a built-in by name, and
// printing Values in Catch2 failure messages (with their kind, since 1 and 1.0 differ).
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/functions/aggregates.h"
#include "engine/functions/builtins.h"
#include "engine/value.h"

namespace Catch {
template <>
struct StringMaker<datalog::Value> {
  static std::string convert(const datalog::Value& v) {
    return std::string(datalog::kind_name(v.kind())) + " " + v.to_edn();
  }
};
}  // namespace Catch

namespace fntest {

using datalog::Value;

inline Value I(std::int64_t i) { return Value::integer(i); }
inline Value F(double d) { return Value::floating(d); }
inline Value S(std::string s) { return Value::string(std::move(s)); }
inline Value B(bool b) { return Value::boolean(b); }
inline Value K(std::string kw) { return Value::keyword(std::move(kw)); }
inline Value R(std::int64_t id) { return Value::ref(id); }
inline Value T(std::int64_t ms) { return Value::instant(ms); }
inline Value Nil() { return Value::nil(); }
inline Value U(std::uint8_t last) {
  datalog::Uuid u{};
  u.bytes[15] = last;
  return Value::uuid(u);
}
inline Value Bytes(std::string data) { return Value::bytes(std::move(data)); }

// Calls the built-in `op`, which must exist and accept this many arguments.
inline datalog::functions::CallResult call(std::string_view op, std::vector<Value> args) {
  const datalog::functions::Builtin* b = datalog::functions::find_builtin(op);
  REQUIRE(b != nullptr);
  REQUIRE(b->arity.accepts(args.size()));
  return b->call(args);
}

// The result of a call that must succeed.
inline Value ok(std::string_view op, std::vector<Value> args) {
  datalog::functions::CallResult r = call(op, std::move(args));
  REQUIRE(r.ok());
  return *r.value;
}

// The message of a call that must fail the query.
inline std::string query_error(std::string_view op, std::vector<Value> args) {
  datalog::functions::CallResult r = call(op, std::move(args));
  REQUIRE(r.failed());
  return r.error;
}

// True when the call is a row error.
inline bool row_error(std::string_view op, std::vector<Value> args) {
  return !call(op, std::move(args)).ok();
}

// Runs aggregate `name` over `values`: the Status of the first failing step, else finish's.
struct AggregateOutcome {
  datalog::Status status;
  std::optional<Value> value;  // empty when the group is dropped (or on error)
};
inline AggregateOutcome aggregate(std::string_view name, std::vector<Value> values) {
  auto acc = datalog::functions::make_aggregate(name);
  REQUIRE(acc != nullptr);
  AggregateOutcome out;
  for (const Value& v : values) {
    out.status = acc->add(v);
    if (!out.status.ok()) return out;
  }
  out.status = acc->finish(&out.value);
  return out;
}

// The value of an aggregate that must succeed and keep its group.
inline Value aggregate_value(std::string_view name, std::vector<Value> values) {
  AggregateOutcome out = aggregate(name, std::move(values));
  INFO(out.status.message());
  REQUIRE(out.status.ok());
  REQUIRE(out.value.has_value());
  return *out.value;
}

// The message of an aggregate that must fail.
inline std::string aggregate_error(std::string_view name, std::vector<Value> values) {
  AggregateOutcome out = aggregate(name, std::move(values));
  REQUIRE_FALSE(out.status.ok());
  CHECK(out.status.code() == datalog::StatusCode::InvalidArgument);
  return out.status.message();
}

}  // namespace fntest
