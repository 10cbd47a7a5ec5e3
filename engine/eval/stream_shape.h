// engine/eval/stream_shape.h: which query bodies stream (query_stream.h), and the order their
// patterns are read in.
//
// A body streams when every clause is a pattern with a constant attribute (not a temporal
// pseudo pattern) or a plain expression, and its patterns form a chain from one root:
//   - one pattern alone is its own root, whatever its entity;
//   - with several, the root's entity is a constant (or a slot) — or, failing that, its value is,
//     and the stream then runs only while the graph expects few datoms to hold that value
//     (QueryStream checks the estimate) — and each later pattern's entity is a variable a
//     pattern before it binds, while its value is new: a variable no pattern before it binds,
//     `_`, or a constant.
// Read in that order, each later pattern is an entity look-up per binding of those before it
// ([$e :next ?m] [?m :next ?end] [?end :val ?v], [?p :email $x] [?p :name ?n]): a nested-loop
// join that holds one binding at a time. Any other join (a value that must unify with one bound
// before, an entity nothing binds yet: a hash join or a cross product) is evaluated in full by
// run_query.
#pragma once

#include <vector>

#include "engine/ast.h"
#include "engine/value.h"

namespace datalog::eval {

// The body's patterns in the order they stream, as pointers into query.where (order is reused
// from call to call); false when the body does not stream. Slots count as constants: the
// order is the same before and after they are filled.
bool stream_order(const ast::Query& query, std::vector<const ast::Pattern*>* order);

// An expression that reads only its arguments and gives at most one value: a filter, or a
// binding of a variable (a wildcard output would only test that the call succeeds). get-else,
// missing? and ground read the graph or may bind several values.
bool is_plain_expression(const ast::ExprClause& c);

// A constant value that matches only itself in a scan (an ident keyword or uuid also matches the
// entity it names, a ref its ident, and a float its neighbours within epsilon).
bool matches_only_itself(const Value& v);

}  // namespace datalog::eval
