// engine/eval/value_ranges.h: the values a variable can take and still pass the comparison
// filters of its body, so that the pattern binding it scans only those (AVET ranges).
//
// A filter `[(< ?v 100)]` drops every row whose ?v is not a number below 100: other kinds are
// row errors (LANGUAGE.md §8), and a row error drops the row. So a pattern `[?e :val ?v]` may
// skip those datoms in the scan. The filters still run on what the scan returns: the ranges
// are a superset of what passes (integers and floats are bounded with rounding outward), so
// results never change, only the work.
#pragma once

#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/storage.h"

namespace datalog::eval {

// The clauses of body that are a plain comparison of a variable with a constant:
// [(< ?v C)], [(>= C ?v)], ... (< > <= >=; the constant a number or an instant).
std::vector<const ast::ExprClause*> comparison_filters(const std::vector<ast::Clause>& body);

// The ranges var must lie in to pass every filter in filters that mentions it, in kind
// order; empty when none does (no restriction). A contradiction gives one empty range.
std::vector<ValueRange> value_ranges(const std::string& var,
                                     const std::vector<const ast::ExprClause*>& filters);

// Whether filter compares var with an integer constant. Its integer range is then exact: an
// integer value inside value_ranges(var, ...) passes it, so a scan held to those ranges need
// not run it again on integer values.
bool exact_on_integers(const ast::ExprClause& filter, const std::string& var);

}  // namespace datalog::eval
