// engine/schema_writer.h: asserts facts under the graph's schema (engine/schema.h). Both
// write paths use it: (transact ...) through eval/write_runner and INSERT into a store table.
//
// For [e a v] valid over [from, to):
// - :db/valueType: v must be of that type, else the assertion fails.
// - :db/unique (value or identity): v may not be held by another entity over an overlapping
//   valid-time window, else it fails naming the entity holding it.
// - :db/cardinality one: the other values of e's a whose windows overlap [from, to) are
//   retracted in the same transaction (an ordinary retraction: every window of that value, from
//   this transaction on; earlier transactions still see it). So the last of several values
//   wins.
// - Under cardinality one or uniqueness, asserting a value e already holds over an overlapping
//   window writes nothing (an upsert does not pile up windows of its identity value).
// - schema facts: their value must be one the schema accepts; a :db/valueType must fit every
//   value the attribute already holds, and :db/unique may not be declared while two entities
//   hold one value over overlapping windows. The three schema attributes are cardinality one.
// Every check runs before anything is written, so a failed assertion writes nothing.
// Thread safety: none; one writer at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "engine/schema.h"
#include "engine/status.h"
#include "engine/storage.h"

namespace datalog {

class SchemaWriter {
 public:
  SchemaWriter(GraphWriter& graph, Schema& schema) : graph_(graph), schema_(schema) {}

  // a_ident is the attribute's keyword (a is the entity it names).
  Status assert_fact(EntityId e, EntityId a, const Value& a_ident, const Value& v,
                     std::int64_t valid_from, std::int64_t valid_to);

  // For upserts: the entity that holds v for identity attribute a over a window overlapping
  // [from, to), if any. *identity says whether a is a :db.unique/identity attribute at all.
  Status identity_holder(EntityId a, const Value& v, std::int64_t valid_from, std::int64_t valid_to,
                         bool* identity, std::optional<EntityId>* holder);

  // An entity as messages show it: its ident when it has one, else its id.
  std::string entity_text(EntityId id);

 private:
  // Unique: fails when another entity holds v; *present when e holds it already.
  Status check_unique(EntityId e, EntityId a, const Value& a_ident, const Value& v,
                      std::int64_t from, std::int64_t to, bool* present);
  Status check_schema_change(SchemaAttribute which, EntityId attribute,
                             const Value& attribute_ident, const AttributeSchema& declared);
  // Cardinality one: retracts e's other overlapping values of a; *present when v is there already.
  Status replace_others(EntityId e, EntityId a, const Value& v, std::int64_t from, std::int64_t to,
                        bool* present);

  GraphWriter& graph_;
  Schema& schema_;
};

}  // namespace datalog
