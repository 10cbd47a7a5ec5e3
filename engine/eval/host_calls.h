// engine/eval/host_calls.h: the calls of Datalog that reach the host's functions (the SQL
// functions of the connection, §16), found before anything runs.
//
// Rules are stored in the graph file, and a graph file may come from someone else (README,
// "Threat model"). So before a query evaluates any rule, every host call in the bodies of the
// rules it reaches is shown to the host (ExternalFunctions::check_rule_call), which refuses the
// functions that stored Datalog may not call, as SQLite refuses them to a schema.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/eval_context.h"
#include "engine/status.h"

namespace datalog::eval {

struct HostCall {
  std::string function;  // the host's name for it (without "sql/")
  std::size_t arity = 0;
  ast::SourcePos pos;
};

// Every host call in clauses, nested calls, `not` and `or` included, in source order.
void collect_host_calls(const std::vector<ast::Clause>& clauses, std::vector<HostCall>* out);

// Asks external about each host call of every rule that `where` calls, directly or through
// other rules; the first refusal is the error.
Status check_rule_host_calls(const std::vector<ast::Rule>& rules, const std::vector<ast::Clause>& where,
                             ExternalFunctions& external);

}  // namespace datalog::eval
