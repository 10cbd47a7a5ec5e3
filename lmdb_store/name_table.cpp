#include "lmdb_store/name_table.h"

#include "lmdb_store/meta.h"

namespace datalog::store {

NameTable::~NameTable() {
  for (auto& page : pages_) delete page.load(std::memory_order_relaxed);
}

bool NameTable::slot_of(EntityId id, std::size_t* page, std::size_t* slot) {
  if (id < static_cast<EntityId>(kFirstIdentId)) return false;
  const auto offset = static_cast<std::uint64_t>(id) - kFirstIdentId;
  if (offset >= kMaxIds) return false;
  *page = static_cast<std::size_t>(offset >> kPageBits);
  *slot = static_cast<std::size_t>(offset & (kPageSize - 1));
  return true;
}

const Value* NameTable::find(EntityId id) const {
  std::size_t p = 0, s = 0;
  if (!slot_of(id, &p, &s)) return nullptr;
  const Page* page = pages_[p].load(std::memory_order_acquire);
  return page ? page->slots[s].load(std::memory_order_acquire) : nullptr;
}

bool NameTable::insert(EntityId id, const Value& name) {
  std::size_t p = 0, s = 0;
  if (!slot_of(id, &p, &s)) return false;
  Page* page = pages_[p].load(std::memory_order_relaxed);
  if (!page) {
    page = new Page;
    pages_[p].store(page, std::memory_order_release);
  }
  // Readers may hold the name already set: it is never written again.
  if (page->slots[s].load(std::memory_order_relaxed)) return true;
  page->names[s] = name;
  page->slots[s].store(&page->names[s], std::memory_order_release);
  return true;
}

}  // namespace datalog::store
