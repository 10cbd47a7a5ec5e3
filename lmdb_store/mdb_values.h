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
