// lmdb_store/name_table.h: committed ident names by entity id, read without a lock.
//
// Ident ids are handed out in sequence from kFirstIdentId (meta.h), so names sit in pages of
// kPageSize slots indexed by id. A committed ident never changes or goes away (read_cache.h),
// so a page, once published, never moves and a slot, once set, never changes: find() needs no
// lock, and the Value it points to stays valid for as long as the table lives. Names of ids
// outside the table's range (more than kMaxIds idents) are not kept here.
// Thread safety: find() from any thread; insert() serialized by the caller.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <memory>

#include "engine/value.h"

namespace datalog::store {

class NameTable {
 public:
  static constexpr std::size_t kPageBits = 12;
  static constexpr std::size_t kPageSize = std::size_t{1} << kPageBits;
  static constexpr std::size_t kMaxPages = 4096;
  static constexpr std::size_t kMaxIds = kPageSize * kMaxPages;  // 16.7M idents

  NameTable() = default;
  ~NameTable();
  NameTable(const NameTable&) = delete;
  NameTable& operator=(const NameTable&) = delete;

  // id's name, or null when it was never inserted.
  const Value* find(EntityId id) const;
  // Keeps name as id's name; false when id is outside the table. A name already set is kept.
  bool insert(EntityId id, const Value& name);

 private:
  struct Page {
    std::array<std::atomic<const Value*>, kPageSize> slots{};
    std::unique_ptr<Value[]> names{new Value[kPageSize]};
  };
  static bool slot_of(EntityId id, std::size_t* page, std::size_t* slot);

  std::array<std::atomic<Page*>, kMaxPages> pages_{};
};

}  // namespace datalog::store
