// engine/storage.h: what the Datalog engine needs from a graph store. The engine owns this
// interface; lmdb_store implements it (lmdb_store/graph_access.h). The engine knows no LMDB.
//
// A GraphReader is one consistent snapshot of one graph (or a write transaction's view, which
// includes its own writes). A GraphWriter adds writes to it. Neither is thread-safe: one
// evaluation uses one at a time. Datoms passed to callbacks are valid only during the call.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/datom.h"
#include "engine/status.h"
#include "engine/value.h"

namespace datalog {

// Values from low to high, both included, both of one kind; low > high holds nothing.
struct ValueRange {
  Value low, high;
};

// The parts of a datom a scan fixes. v is matched exactly (kind and value). When v_ranges is
// not empty, only datoms whose value lies in one of the ranges match (ranges in the order of
// their kinds, disjoint); with a fixed attribute and no entity they are scanned in AVET.
struct DatomFilter {
  std::optional<EntityId> e;
  std::optional<EntityId> a;
  std::optional<Value> v;
  std::vector<ValueRange> v_ranges;
  // The reader never looks at a datom's value (a pattern's `_`): a scan may leave it nil
  // where skipping it saves decoding. Ignored when v or v_ranges is set.
  bool values_unused = false;
  // With only the attribute fixed: the reader would rather have datoms in value order (AVET)
  // than entity order, e.g. to group by the value.
  bool value_order = false;

  bool in_v_ranges(const Value& value) const {
    if (v_ranges.empty()) return true;
    for (const ValueRange& r : v_ranges) {
      if (value.kind() == r.low.kind() && !(value < r.low) && !(r.high < value)) return true;
    }
    return false;
  }
};

// A rule as persisted in the graph: its name and its source text `(rule [...])`.
struct StoredRule {
  std::string name;
  std::string source;
};

// A scan read step by step (for results that stream): positioned on a datom until at_end().
// Like scan's, its datoms are visible in the view and match the filter. It must not outlive the
// GraphReader, and the GraphReader must not write while it is open.
class DatomCursor {
 public:
  virtual ~DatomCursor() = default;
  virtual bool at_end() const = 0;
  virtual const Datom& datom() const = 0;
  // The current datom, for the caller to move from: next() replaces it.
  virtual Datom& take_datom() = 0;
  virtual Status next() = 0;
  // True when the cursor, set aside, holds nothing of the graph (no snapshot, no pages), so a
  // caller may keep it for open_cursor to start again.
  virtual bool keepable() const { return false; }
};

// Where a reader's estimates come from: two readers with equal sources estimate alike, and
// resolve idents alike. state 0: estimates that move (a write transaction's).
struct EstimateSource {
  std::uint64_t graph = 0;  // which index (a rebuilt one is another)
  std::uint64_t state = 0;  // which committed state of it
  bool operator==(const EstimateSource& o) const { return graph == o.graph && state == o.state; }
};

class GraphReader {
 public:
  virtual ~GraphReader() = default;

  // Calls each(datom) for every datom visible in view that matches filter, in index order,
  // until each returns false.
  virtual Status scan(const DatomFilter& filter, const TimeView& view,
                      const std::function<bool(const Datom&)>& each) = 0;
  // The same datoms as scan, as a cursor. A cursor in *out that this reader made may be started
  // again in place (it keeps its storage); on an error *out is empty.
  virtual Status open_cursor(const DatomFilter& filter, const TimeView& view,
                             std::unique_ptr<DatomCursor>* out) = 0;
  // About how many records a scan with filter reads (for join ordering); cheap.
  virtual double estimate(const DatomFilter& filter) = 0;
  virtual EstimateSource estimate_source() const { return {}; }

  // Idents: a keyword or uuid naming an entity.
  virtual Status entity_of(const Value& ident, std::optional<EntityId>* out) = 0;
  virtual Status ident_of(EntityId id, std::optional<Value>* out) = 0;

  virtual Status tx_as_of_time(std::int64_t ms, std::uint64_t* tx) = 0;  // `:as-of "ISO"`
  virtual Status tx_time(std::uint64_t tx, std::int64_t* ms) = 0;  // wall time of a transaction
  virtual Status rules(std::vector<StoredRule>* out) = 0;  // persisted rules, oldest first
};

class GraphWriter : public GraphReader {
 public:
  std::uint64_t virtual tx() const = 0;           // the counter this transaction will commit
  std::int64_t virtual tx_time_ms() const = 0;    // its wall time
  // The entity an ident names, created when missing.
  virtual Status resolve_ident(const Value& ident, EntityId* out) = 0;
  virtual Status assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                             std::int64_t valid_to) = 0;
  // *stored (when given) says whether a retraction was recorded: none is for a fact that is not
  // asserted, which would change no view.
  virtual Status retract_fact(EntityId e, EntityId a, const Value& v, bool* stored = nullptr) = 0;
  virtual Status add_rule(const StoredRule& rule) = 0;
  // Removes every rule named name; *removed says how many.
  virtual Status remove_rules(const std::string& name, int* removed) = 0;
};

}  // namespace datalog
