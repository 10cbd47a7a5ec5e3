// engine/parser_internal.h: the parser's shared pieces (private to engine/parser*.cpp).
//
// FormParser turns one EDN tree (engine/edn_reader.h) into AST nodes. Its member functions are
// split by what they parse: parser.cpp (commands, facts, rules), query_parser.cpp (the query
// vector and its sections), find_parser.cpp (:find elements), clause_parser.cpp (:where
// clauses, patterns, expressions). It keeps the script text to quote sources and offending
// elements in messages.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/ast.h"
#include "engine/edn_reader.h"
#include "engine/status.h"
#include "engine/value.h"

namespace datalog::parser_detail {

// Where a clause stands; it picks the message for an element that is not a clause.
enum class Place { Where, RuleBody, Not, NotJoin, OrBranch };

// What a term stands for; it picks the message for an element that is not a term.
enum class TermRole { PatternElement, RuleArgument, RuleHead };

class FormParser {
 public:
  explicit FormParser(std::string_view text) : text_(text) {}

  Status command(const edn::Node& form, ast::Command* out) const;

  // parser.cpp
  Status transact(const edn::Node& form, ast::Transact* out) const;
  Status retract(const edn::Node& form, ast::Retract* out) const;
  Status rule(const edn::Node& form, ast::Rule* out) const;
  Status fact_parts(const edn::Node& fact, ast::Fact* out) const;
  Status entity_map(const edn::Node& map, int index, ast::Transact* out) const;
  Status valid_time_map(const edn::Node& map, std::optional<std::int64_t>* from,
                        std::optional<std::int64_t>* to) const;

  // query_parser.cpp
  Status query(const edn::Node& form, ast::QueryCommand* out) const;
  Status in_binding(const edn::Node& node, ast::InBinding* out) const;

  // find_parser.cpp
  Status find_element(const edn::Node& node, ast::FindElement* out) const;
  Status aggregate(const edn::Node& list, ast::FindElement* out) const;
  Status window(const edn::Node& list, ast::FindElement* out) const;
  Status pull(const edn::Node& list, ast::FindElement* out) const;

  // clause_parser.cpp
  Status clause(const edn::Node& node, Place place, ast::Clause* out) const;
  Status list_clause(const edn::Node& list, bool inside_not, ast::Clause* out) const;
  Status pattern(const edn::Node& vec, ast::Pattern* out) const;
  Status expr_clause(const edn::Node& vec, ast::ExprClause* out) const;
  Status expr(const edn::Node& list, bool nested, ast::Expr* out) const;
  Status expr_arg(const edn::Node& node, ast::ExprArg* out) const;
  Status not_clause(const edn::Node& list, ast::Not* out) const;
  Status or_clause(const edn::Node& list, ast::Or* out) const;
  Status or_branch(const edn::Node& node, std::vector<ast::Clause>* out) const;
  Status rule_call(const edn::Node& list, ast::RuleCall* out) const;
  Status join_vars(const edn::Node& list, std::string_view form,
                   std::vector<ast::Variable>* out) const;
  Status term(const edn::Node& node, TermRole role, ast::Term* out) const;

  // Helpers shared by all of the above.
  std::string_view source(const edn::Node& node) const { return edn::source_of(text_, node); }
  std::string describe(const edn::Node& node) const;  // source text, cut at 60 bytes
  Status error(const edn::Node& at, std::string_view message) const;

 private:
  std::string_view text_;
};

// The constant a node denotes (string, integer, float, boolean, nil, keyword, #uuid, #inst).
std::optional<Value> constant_of(const edn::Node& node);

ast::Variable variable_of(const edn::Node& node);

// :db/valid-from, :db/valid-to, :db/tx-count, :db/tx-id, :db/valid-at (§13).
bool is_pseudo_attribute(std::string_view keyword);

// Minigraf's message for a bare `$` where a slot name is needed.
inline constexpr std::string_view kBareSlotMessage =
    "Bind slot '$' must be followed by an identifier (e.g. $entity)";

}  // namespace datalog::parser_detail
