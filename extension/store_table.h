// extension/store_table.h: the store table's shared parts (private to extension/store_*.cpp):
// the table and cursor objects SQLite holds, and the module's callbacks, one group a file —
// store_connect.cpp (create, connect, rename, destroy), store_read.cpp (planning and reading),
// store_write.cpp (xUpdate and the transaction callbacks); store_vtab.cpp assembles the module.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "extension/connection_context.h"
#include "extension/graph_session.h"
#include "extension/sql_values.h"
#include "extension/sqlite_api.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::ext::store_table {

using store::Status;
using store::StatusCode;

enum Column : int {
  kE = 0,
  kA,
  kV,
  kVtype,
  kTx,
  kTxTime,
  kValidFrom,
  kValidTo,
  kAsOf,
  kValidAt,
  kDatom,
  kColumnCount
};

struct StoreTable : sqlite3_vtab {
  ConnectionContext* context = nullptr;
  std::shared_ptr<GraphSession> session;
  std::string qualified_name;  // schema.table, for temporary graphs
  std::string schema, name;
  std::chrono::milliseconds busy_timeout{5000};
  ConnectionContext::TableLimits limits;
};

// A small cache of entity names for one read view.
class NameCache {
 public:
  void reset(const store::ReadView& reader) {
    reader_ = reader;
    names_.clear();
  }
  Status name_of(EntityId id, std::optional<Value>* out) {
    auto it = names_.find(id);
    if (it != names_.end()) {
      *out = it->second;
      return Status::OK();
    }
    Status st = reader_.ident_name(id, out);
    if (st.ok() && names_.size() < kMaxCached) names_.emplace(id, *out);
    return st;
  }

 private:
  static constexpr std::size_t kMaxCached = 4096;
  store::ReadView reader_;
  std::unordered_map<EntityId, std::optional<Value>> names_;
};

struct StoreCursor : sqlite3_vtab_cursor {
  StoreTable* table() const { return static_cast<StoreTable*>(pVtab); }

  // Where rows are read from: the session's write transaction, or a shared snapshot.
  std::shared_ptr<store::ReadSnapshot> snapshot;
  std::uint64_t visible_tx = UINT64_MAX;  // reads of a snapshot are as of this (prepare_read)
  bool via_writer = false;
  store::ReadView reader;
  std::uint64_t writer_generation = 0;

  store::ScanIndex index = store::ScanIndex::Full;
  std::vector<store::KeyRange> ranges;
  std::size_t range_pos = 0;
  store::DatomScan scan;
  store::TimeView view;
  bool eof = true;
  sqlite3_value* as_of_arg = nullptr;
  sqlite3_value* valid_at_arg = nullptr;
  NameCache names;
  std::unordered_map<std::uint64_t, std::int64_t> tx_times;

  ~StoreCursor() {
    sqlite3_value_free(as_of_arg);
    sqlite3_value_free(valid_at_arg);
  }
};

inline IdentNamer namer(StoreCursor* c) {
  return [c](EntityId id, std::optional<Value>* out) { return c->names.name_of(id, out); };
}

inline IdentResolver lookup_in(const store::ReadView& reader) {
  return [reader](const Value& name, std::optional<EntityId>* out) { return reader.lookup_ident(name, out); };
}

// A cursor over a committed snapshot reads ahead; one over the session's write transaction
// reads fact by fact, so it sees the rows the statement writes ahead of it.
inline store::DatomScan::ReadAhead read_ahead(StoreCursor* c) {
  return c->via_writer ? store::DatomScan::ReadAhead::Live : store::DatomScan::ReadAhead::Snapshot;
}

// The module's callbacks (sqlite3_module), by the file that defines them.
int store_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err);
int store_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err);
int store_disconnect(sqlite3_vtab* vtab);
int store_destroy(sqlite3_vtab* vtab);
int store_rename(sqlite3_vtab* vtab, const char* new_name);
int store_shadow_name(const char* suffix);

int store_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info);
int store_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out);
int store_close(sqlite3_vtab_cursor* cur);
int store_filter(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc, sqlite3_value** argv);
int store_next(sqlite3_vtab_cursor* cur);
int store_eof(sqlite3_vtab_cursor* cur);
int store_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column);

int store_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid);
int store_begin(sqlite3_vtab* vtab);
int store_sync(sqlite3_vtab* vtab);
int store_commit(sqlite3_vtab* vtab);
int store_rollback(sqlite3_vtab* vtab);
int store_savepoint(sqlite3_vtab* vtab, int level);
int store_release(sqlite3_vtab* vtab, int level);
int store_rollback_to(sqlite3_vtab* vtab, int level);

}  // namespace datalog::ext::store_table
