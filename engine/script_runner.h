// engine/script_runner.h: runs a script of Datalog commands in order (LANGUAGE.md §1; unlike
// Minigraf every form runs, header rule 2) against a host that provides the graph.
//
// The host decides transaction boundaries: each transact / retract asks it for a writer and
// tells it when the command is done, so a host in autocommit mode can commit each command as
// its own transaction (Minigraf's counters: one per command) while a host inside an SQL
// transaction keeps them all in that transaction. Rules are checked against the rules already
// in the graph (stratification) and persisted through the writer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/eval/query_runner.h"
#include "engine/status.h"
#include "engine/storage.h"

namespace datalog {

class ScriptHost {
 public:
  virtual ~ScriptHost() = default;
  virtual Status begin_write(GraphWriter** writer) = 0;  // for one command
  virtual Status end_write(bool success) = 0;            // after it
  virtual Status reader(GraphReader** reader) = 0;       // for a query
};

struct CommandOutcome {
  enum class Kind { Transact, Retract, Rule, Query } kind = Kind::Query;
  std::size_t datoms = 0;
  std::size_t not_asserted = 0;  // retract: facts that had nothing to retract
  std::uint64_t tx = 0;
  std::string rule_name;
  eval::QueryResult result;
};

// Runs a script parsed by parse_script (parser.h): a caller may keep the parse of a text it
// runs again.
Status run_commands(ScriptHost& host, const std::vector<ast::Command>& commands,
                    const eval::RunOptions& options, std::vector<CommandOutcome>* outcomes);

// The rules persisted in a graph, parsed.
Status load_rules(GraphReader& graph, std::vector<ast::Rule>* rules);

// Parses a single (query [...]) form.
Status parse_query(std::string_view text, ast::Query* query);

// Checks a query against the rules it may call (safety, rule calls, arity).
Status check_query_with_rules(const ast::Query& query, const std::vector<ast::Rule>& rules);

// Whether format_outcomes would print an entity, whose name `names` gives: only then does the
// caller need a reader (opening one after a commit costs a read transaction of its own).
bool outcomes_show_entities(const std::vector<CommandOutcome>& outcomes);

// A readable summary: one line per command, query results as a table (Minigraf's REPL style).
std::string format_outcomes(const std::vector<CommandOutcome>& outcomes,
                            GraphReader* names_from = nullptr);

}  // namespace datalog
