// engine/eval/temporal_metadata.h: the pseudo-attributes of LANGUAGE.md §13.
//
//   [?e :db/valid-from ?vf]  [?e :db/valid-to ?vt]  [?e :db/tx-count ?tc]  [?e :db/tx-id ?tx]
//   [?e :db/valid-at ?t]
// The first four read the metadata of a fact and need :any-valid-time. Correlation: a pseudo
// pattern that follows real patterns on the same entity (in the text of the query) reads the
// fact matched by the last of them; to make that possible, real patterns on such entities
// carry the metadata of their match along in hidden columns ("#meta ..."). A pseudo pattern
// with no such pattern before it matches every visible fact of the entity, one row per fact.
// :db/valid-at binds the query's valid time (nil under :any-valid-time).
#pragma once

#include <string>

#include "engine/ast.h"
#include "engine/eval/eval_context.h"
#include "engine/eval/relation.h"

namespace datalog::eval {

bool is_pseudo_pattern(const ast::Pattern& p);
// The hidden columns a pseudo pattern reads, as MetaNeed bits; 0 for :db/valid-at, which reads
// none, and for any other pattern. Real patterns carry only the columns some pseudo pattern on
// their entity reads: each is a value per row of every relation on the way.
enum MetaNeed : unsigned { kNeedValidFrom = 1, kNeedValidTo = 2, kNeedTx = 4 };
unsigned meta_needed(const ast::Pattern& p);
// The text that identifies a pattern's entity term ("?e", ":alice"), for correlation.
std::string entity_key(const ast::Term& e);

// Hidden columns that carry the metadata of the last real pattern on entity key.
struct MetaColumns {
  static std::string valid_from(const std::string& key) { return "#meta vf " + key; }
  static std::string valid_to(const std::string& key) { return "#meta vt " + key; }
  static std::string tx(const std::string& key) { return "#meta tx " + key; }
  static std::string order(const std::string& key) { return "#meta order " + key; }
};

Status apply_pseudo_pattern(EvalContext& ctx, const ast::Pattern& p, Relation& rel);

}  // namespace datalog::eval
