// lmdb_store/txn_idents.h: the idents one write transaction has created or met that are not
// known committed yet, undone savepoint by savepoint.
//
// Why: an ident lookup in LMDB costs a B-tree search; a bulk load names the same new entities
// and attributes again and again. These idents must not reach the graph's shared ReadCache
// before the transaction commits (a rollback may give their ids to other names), so the writer
// keeps them here. They are not published at commit: the shared cache holds what readers and
// later writers look up, not every entity a bulk load creates. At most kMaxEntries are kept
// (a bulk load of millions of new entities must not hold them all in memory); past that,
// lookups go to LMDB, which is always right.
//
// Layout: the names in the order remembered, and an open-addressing table of (hash, position)
// pairs over them. A bulk load's lookups mostly miss (its entities are new); a miss reads one
// slot of the flat table, where a node-based map chased pointers through cold memory. In front
// of the table, a filter of three bits per name (64 KiB for kMaxEntries names) answers most misses
// without touching the table: full, the table is 2 MiB, past what the cache keeps at hand, and
// its probe was the largest single cost of a bulk load of new names.
//
// Contract: entries are undone in the reverse order they were added: mark() before a savepoint
// level begins, undo_to(mark) when that level is rolled back. Thread safety: none (one owner).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/value.h"

namespace datalog::store {

class TxnIdents {
 public:
  std::optional<EntityId> find(const Value& name) const;
  void remember(const Value& name, EntityId id);

  std::size_t mark() const { return added_.size(); }
  void undo_to(std::size_t mark);  // forgets what was remembered since mark
  void clear();

  static constexpr std::size_t kMaxEntries = std::size_t{1} << 16;

 private:
  struct Entry {
    Value name;
    EntityId id;
  };
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t position = kEmpty;  // into added_
  };
  static constexpr std::uint32_t kEmpty = UINT32_MAX;

  // The slot holding name, or the empty slot where it would go.
  std::size_t probe(const Value& name, std::uint64_t hash) const;
  void index(std::uint32_t position, std::uint64_t hash);
  void rebuild(std::size_t slots);
  // The filter: false means name (of this hash) is not remembered; true means it may be.
  bool may_hold(std::uint64_t hash) const;
  void add_to_filter(std::uint64_t hash);

  std::vector<Entry> added_;  // in the order remembered, for undo_to
  std::vector<Slot> slots_;   // a power of two in size, at most half full
  // Bits set from each remembered name's hash; sized on the first remember, zeroed by clear()
  // and set again from added_ by rebuild() (an undo, or the table's growth).
  static constexpr std::size_t kFilterBits = kMaxEntries * 8;
  std::vector<std::uint64_t> filter_;
};

}  // namespace datalog::store
