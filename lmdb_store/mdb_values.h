// lmdb_store/mdb_values.h: small conversions every file that calls LMDB needs: bytes to and
// from MDB_val, and the table of an index.
#pragma once

#include <lmdb.h>

#include <string_view>

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_env.h"

namespace datalog::store {

// LMDB takes a non-const pointer but does not write through it for keys and values it reads.
inline MDB_val as_val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }

inline std::string_view as_view(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

// Keys of an LMDB table arrive in strictly increasing order as a cursor steps (LMDB refuses empty
// keys), unless a page was damaged in place: LMDB compares keys only when it searches. Every loop
// that steps through a table checks each key with one of these, so a damaged page can neither
// hand back the same key two billion times nor pass off one record as another. The previous key
// is a view into the map, valid while nothing writes between two steps.
class KeyOrder {
 public:
  bool next(std::string_view key) {
    const bool in_order = key > previous_;
    previous_ = key;
    return in_order;
  }

 private:
  std::string_view previous_;
};

inline MDB_dbi table_of(const Tables& t, IndexId index) {
  switch (index) {
    case IndexId::Eavt: return t.eavt;
    case IndexId::Aevt: return t.aevt;
    case IndexId::Avet: return t.avet;
    case IndexId::Vaet: return t.vaet;
  }
  return t.eavt;
}

}  // namespace datalog::store
