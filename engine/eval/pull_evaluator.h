// engine/eval/pull_evaluator.h: the value of a `(pull ?e [...])` :find element — the entity ?e
// stands for, as a JSON object text (a Value::String, so SQL sees TEXT its JSON functions read).
//
// What a pulled object holds:
//   - ":db/id": the entity, as SQL shows entities (LANGUAGE.md header rule 4): its ident
//     keyword (":alice") or uuid text when it has one, else its integer id. Always first.
//   - one key per pattern element, in pattern order: the attribute keyword as written, colon
//     included (":person/name", ":_friend"), or the :as key. `*` gives every attribute of the
//     entity in keyword order. A key appears once: a later element with the same key (an
//     explicit {:friend [...]} after `*`) replaces the earlier value in its place.
//   - forward attributes: the distinct visible values (in the graph's value order), after
//     :limit. No schema means no cardinality, so the rule is: one value gives the value, several
//     give an array. No value: the key is left out, or :default's value is given.
//   - reverse attributes (:_friend): the entities whose :friend value is this entity (a ref to
//     it, its ident keyword or uuid, or its integer id), in entity id order, always an array.
//   - values are written as engine/eval/json_text.h says; a ref value is its entity, like
//     ":db/id". Under a map spec {:attr sub}, each value that names an entity (ref, ident,
//     integer id) becomes a nested object pulled with sub; other values stay as they are.
//   - recursion ({:friend ...} or {:friend n}) pulls the followed entity with the pattern that
//     holds the map spec again, n levels (100 for `...`); an entity already being pulled on the
//     way down (a cycle), or one past the limit, is given as {":db/id": ...} alone.
// The query's time view (:as-of, :valid-at) decides what is visible, as in :where.
// A value ?e holds that names no entity (a string, a keyword no datom uses as entity) pulls to
// nil (SQL NULL).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/eval/eval_context.h"
#include "engine/pull_pattern.h"

namespace datalog::eval {

// At most this many objects in one pulled value: a guard against recursion on dense graphs.
inline constexpr std::int64_t kMaxPulledObjects = 100'000;
// How deep `...` recursion goes.
inline constexpr std::int64_t kMaxPullRecursion = 100;

class PullEvaluator {
 public:
  // what names the element in messages: "(pull ?e ...)".
  PullEvaluator(EvalContext& ctx, const pull::Pattern& pattern, std::string what)
      : ctx_(ctx), pattern_(pattern), what_(std::move(what)) {}

  // *out = the JSON text of the entity v stands for, or nil when v names no entity.
  Status pull(const Value& v, Value* out);

 private:
  // Values of one entity, by attribute id (distinct, sorted).
  using Attributes = std::map<EntityId, std::vector<Value>>;
  using Entry = std::pair<std::string, std::string>;  // key, JSON text

  Status object(EntityId id, const pull::Pattern& pattern, std::string& out);
  Status wildcard(const Attributes& all, std::vector<Entry>* out);
  Status attribute(EntityId id, const pull::AttributeSpec& spec, const pull::Pattern& holder,
                   const Attributes* all, std::string& out, bool* present);
  Status all_attributes(EntityId id, Attributes* out);
  Status forward_values(EntityId id, const pull::AttributeSpec& spec, const Attributes* known,
                        std::vector<Value>* out);
  Status referrers(EntityId id, const pull::AttributeSpec& spec, std::vector<EntityId>* out);
  Status followed(const Value& v, const pull::AttributeSpec& spec, const pull::Pattern& holder,
                  std::string& out);
  Status nested(EntityId id, const pull::AttributeSpec& spec, const pull::Pattern& holder,
                std::string& out);
  Status entity(EntityId id, std::string& out);
  Status value(const Value& v, std::string& out);

  EvalContext& ctx_;
  const pull::Pattern& pattern_;
  std::string what_;
  std::unordered_map<EntityId, Value> cache_;  // top-level results: one pull per entity
  std::int64_t objects_ = 0;                   // objects in the value being built
  std::vector<EntityId> path_;                 // entities being pulled, outermost first
  std::map<const pull::AttributeSpec*, std::int64_t> recursion_;  // levels taken per spec
};

}  // namespace datalog::eval
