// extension/graph_log.h: a store table's transaction log, kept in SQLite (storage v2).
//
// The log lives in two shadow tables of the store table's own schema, so SQLite's commit is the
// graph's commit (atomic with the application's tables, durable once, copied by every backup):
//
//   "<table>_log"(seq INTEGER PRIMARY KEY, tx INTEGER NOT NULL, tx_time INTEGER NOT NULL,
//                 body BLOB NOT NULL)     -- one row per graph transaction (or per MiB of one)
//   "<table>_meta"(key TEXT PRIMARY KEY, value) WITHOUT ROWID   -- 'uuid', 'format'
//
// Rows are written with nested statements on the table's connection, inside the caller's SQL
// transaction (as FTS5 writes its shadow tables); body is the record list of log_records.h, kept
// compressed when it is large (log_body_codec.h).
// The LMDB index (GraphEnv) is derived from these rows; GraphSession keeps it caught up.
//
// Thread safety: none; SQLite serialises calls on a connection and a GraphLog belongs to one.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "extension/sqlite_api.h"
#include "lmdb_store/log_body_codec.h"
#include "lmdb_store/log_records.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::ext {

// The layout of the shadow tables and of a row's body. 2: a large body may be compressed
// (log_body_codec.h); 1 wrote none. A log is marked 2 by the transaction that first writes a
// compressed body into it, so a build that knows only format 1 is never handed one unawares; a
// log of a format above kLogFormat is refused.
inline constexpr int kLogFormat = 2;

class GraphLog {
 public:
  GraphLog(sqlite3* db, std::string schema, std::string table)
      : db_(db), schema_(std::move(schema)), table_(std::move(table)) {}
  ~GraphLog() { finalize(); }
  GraphLog(const GraphLog&) = delete;
  GraphLog& operator=(const GraphLog&) = delete;

  // CREATE VIRTUAL TABLE: makes the shadow tables and the graph's identity (a new uuid).
  static store::Status create(sqlite3* db, const std::string& schema, const std::string& table);
  // DROP TABLE / ALTER TABLE ... RENAME: the shadow tables go or follow.
  static store::Status destroy(sqlite3* db, const std::string& schema, const std::string& table);
  static store::Status rename(sqlite3* db, const std::string& schema, const std::string& from,
                              const std::string& to);
  // xShadowName: the suffixes of the shadow tables ("log", "meta").
  static bool is_shadow_suffix(const char* suffix);

  const std::string& schema() const { return schema_; }
  const std::string& table() const { return table_; }
  void renamed(std::string to);  // after rename(): statements are prepared again

  // The graph's identity, from "<table>_meta".
  store::Status uuid(std::string* out);
  // Both: whether the shadow tables exist and, when they do, the uuid. One statement where
  // "<table>_meta" exists (each statement prepared was a few percent of opening a graph). It
  // reads the log's format too: TooNew above kLogFormat.
  store::Status identity(bool* exists, std::string* uuid);

  // The log's last row as this connection's SQLite snapshot sees it (seq 0: empty log). Cached
  // while SQLite's data version of the schema stays the same within a read transaction.
  //
  // A statement that holds no read transaction of the log's schema (one on a temp-schema query
  // table: it reads nothing else of that database) has no snapshot to agree with; reading the
  // tip would take the database's read lock for each call. Its tip is kept while the index's
  // committed state (index_state, LMDB's transaction id; 0: unknown) stays the same, for up to
  // kTipReuse: every commit of the log is followed by one of the index before it is
  // acknowledged, so a statement begun after an acknowledged commit always reads the tip again.
  // Only a writer that died between the two commits leaves the index's state as it was; its
  // transaction is then seen within kTipReuse.
  struct Tip {
    std::uint64_t seq = 0, tx = 0;
    std::int64_t tx_time_ms = 0;
  };
  static constexpr auto kTipReuse = std::chrono::milliseconds(100);
  store::Status tip(Tip* out, std::uint64_t index_state = 0);
  void forget_tip() { tip_cached_ = false; }

  // Appends rows after seq `after` (their seq is set here) in one statement: inside an open SQL
  // transaction it joins it; in autocommit mode it is a transaction, all rows or none. Large
  // bodies are stored compressed, and each row's body is then what was stored.
  store::Status append(std::vector<store::LogRow>& rows, std::uint64_t after);
  // Calls each for rows with from < seq <= through, in order, with each body's records (a
  // compressed body decompressed; a damaged one is Corrupt).
  store::Status read(std::uint64_t from, std::uint64_t through,
                     const std::function<store::Status(const store::LogRow&)>& each);
  // The wall time and counter of row seq (false: no such row in this snapshot).
  store::Status row(std::uint64_t seq, bool* found, std::uint64_t* tx, std::int64_t* tx_time_ms);

 private:
  // Whether the shadow tables exist (a table made by the first storage format has none);
  // identity()'s answer where "<table>_meta" is missing.
  store::Status exists(bool* out);
  store::Status prepare(sqlite3_stmt** stmt, const std::string& sql);
  store::Status sql_error(int rc, const std::string& what) const;
  void finalize();
  std::string log_table() const;  // "schema"."table_log", quoted
  // Marks a log of format 1 as format 2 before its first compressed body, in the same transaction.
  store::Status mark_format_2();

  sqlite3* db_;
  std::string schema_, table_;
  sqlite3_stmt* tip_stmt_ = nullptr;
  sqlite3_stmt* append_stmt_ = nullptr;
  sqlite3_stmt* read_stmt_ = nullptr;
  sqlite3_stmt* row_stmt_ = nullptr;
  int format_ = 0;  // the log's format as identity() read it (0: not read yet; every session reads it)
  store::LogBodyPacker packer_;
  bool tip_cached_ = false;
  unsigned tip_version_ = 0;
  std::uint64_t tip_index_state_ = 0;  // the index's state when the tip was read (0: unknown)
  std::chrono::steady_clock::time_point tip_read_at_;
  Tip tip_;
};

}  // namespace datalog::ext
