// lmdb_store/table_cursor.h: an LMDB cursor that closes with its owner, for reading a table
// front to back (the first format's reader, the index check).
#pragma once

#include <lmdb.h>

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "lmdb_store/mdb_values.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::store {

class TableCursor {
 public:
  TableCursor() = default;
  ~TableCursor() {
    if (cursor_) mdb_cursor_close(cursor_);
  }
  TableCursor(const TableCursor&) = delete;
  TableCursor& operator=(const TableCursor&) = delete;

  Status open(MDB_txn* txn, MDB_dbi dbi, std::string_view table) {
    table_ = table;
    const int rc = mdb::cursor_open(txn, dbi, &cursor_);
    if (rc != MDB_SUCCESS) cursor_ = nullptr;
    return status_from_mdb(rc, fmt::format("open the {} table", table));
  }
  MDB_cursor* get() const { return cursor_; }

  // Moves with op (MDB_FIRST or MDB_NEXT); at_end() once there is no record there.
  Status step(MDB_cursor_op op) {
    const int rc = mdb::cursor_get(cursor_, &k_, &v_, op);
    at_end_ = rc == MDB_NOTFOUND;
    if (rc != MDB_SUCCESS && !at_end_) return status_from_mdb(rc, fmt::format("read the {} table", table_));
    if (op == MDB_FIRST) order_ = KeyOrder();
    if (!at_end_ && !order_.next(key())) {
      return index_damage(mdb_cursor_txn(cursor_), fmt::format("the {} table's keys are out of order", table_));
    }
    return Status::OK();
  }
  bool at_end() const { return at_end_; }
  std::string_view key() const { return as_view(k_); }
  std::string_view data() const { return as_view(v_); }

 private:
  MDB_cursor* cursor_ = nullptr;
  std::string table_;
  MDB_val k_{}, v_{};
  bool at_end_ = true;
  KeyOrder order_;
};

}  // namespace datalog::store
