// extension/graph_session.h: one SQLite connection's use of one graph.
//
// A graph is its log in SQLite (graph_log.h, the truth) and an LMDB index derived from it
// (GraphEnv). The session ties both to SQLite's transaction:
// - writes: the first write of a transaction begins one WriteTxn (SQLite's write lock is
//   already held by the writing statement, so writers are serialised by SQLite); xSync appends
//   its log rows to the log inside the SQL transaction; xCommit, after SQLite's commit, commits
//   the index (LMDB may defer the sync: the log is what is durable). Savepoint calls map onto the
//   WriteTxn's nested transactions, and cut its log rows back with them.
// - reads: cursors read through the open WriteTxn (read-your-writes) or else through one read
//   snapshot shared by all cursors of the session, bounded to the log position the statement's
//   SQLite snapshot sees (prepare_read): a join of SQL tables and graph facts reads one state.
//   The snapshot ends when the last cursor using it stops, so it never pins old pages.
// - catching up: whoever finds the index behind the log (a crash between the two commits, a
//   restored or copied database, lost unsynced index writes) replays the missing rows; an index
//   ahead of the log, of another history or empty is rebuilt from the whole log.
// Thread safety: SQLite serialises calls on a connection; a session belongs to one connection.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/ast.h"
#include "engine/schema.h"
#include "extension/graph_log.h"
#include "extension/interrupt_probe.h"
#include "lmdb_store/graph_access.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/write_txn.h"

namespace datalog::ext {

class GraphSession {
 public:
  GraphSession(std::shared_ptr<store::GraphEnv> env, std::chrono::milliseconds busy_timeout)
      : env_(std::move(env)), busy_timeout_(busy_timeout) {}
  ~GraphSession();
  GraphSession(const GraphSession&) = delete;
  GraphSession& operator=(const GraphSession&) = delete;

  store::GraphEnv& env() const { return *env_; }
  // The log of the store table this session indexes (set by the table's xConnect).
  GraphLog* log() const { return log_.get(); }
  void attach_log(std::unique_ptr<GraphLog> log) { log_ = std::move(log); owner_checked_ = false; }
  // Where the database lives, recorded in the index as its owner (empty: no file), and the
  // index's own path for this table when no file is named.
  const std::string& database_path() const { return database_path_; }
  void set_paths(std::string database, std::string derived_index) {
    database_path_ = std::move(database);
    derived_index_path_ = std::move(derived_index);
  }
  const std::shared_ptr<store::GraphEnv>& shared_env() const { return env_; }
  // The interrupt probe's statements on this session's connection (interrupt_probe.h).
  ProbeStatements& probe_statements() { return probe_statements_; }
  // The scan that this session's readings reuse from call to call (GraphAccess::use_spare).
  store::SpareScan& spare_scan() { return spare_scan_; }

  // The table has a log and the index belongs to it (checked once; a stale index is claimed and
  // rebuilt). Run before the first read or write, and by CREATE VIRTUAL TABLE.
  store::Status check_log_and_owner();

  // --- writing ---
  // Idempotent; the busy timeout of whoever begins it applies (each table has its own).
  store::Status begin_write(std::chrono::milliseconds busy_timeout);
  store::Status begin_write() { return begin_write(busy_timeout_); }
  store::WriteTxn* writer() const { return writer_.get(); }  // null outside a transaction
  store::Status flush_log();                // xSync: the log rows go into the SQL transaction
  store::Status commit();                   // xCommit: the index follows; ends the transaction
  // Outside any SQL transaction (autocommit datalog_exec): the log rows in one autocommit
  // statement, then the index. An error leaves nothing written.
  store::Status commit_alone();
  void rollback();                          // idempotent
  // After a row of a large SQL transaction (xUpdate): once the index pages it changed pass
  // page_bytes, and no savepoint is open, the index commits part way
  // (store::WriteTxn::commit_interim). A later ROLLBACK leaves records the next writer removes
  // by rebuilding the index from the log.
  store::Status commit_part_if_due(std::size_t page_bytes);
  // The connection's write_memory_mb in bytes (ConnectionContext pushes it): what a catch-up or
  // rebuild of the index may hold in memory before it commits a part.
  void set_write_page_bytes(std::size_t bytes) { write_page_bytes_ = bytes; }
  static constexpr std::int64_t kDefaultWriteMemoryMb = 32;
  store::Status savepoint(int level);
  store::Status release(int level);
  store::Status rollback_to(int level);

  // The schema INSERTs into the graph check (engine/schema.h): read once per write
  // transaction and kept current by the INSERTs that write schema facts; forgotten when the
  // transaction ends or rolls back to a savepoint, and by any other write that may change
  // schema (a Datalog command, a DELETE).
  std::optional<Schema>& schema_cache() { return schema_; }
  void forget_schema() { schema_.reset(); }

  // --- reading ---
  // The snapshot readers share now: the current one while any reader holds it, else a new one.
  // A commit by this session retires it, so later readers see the commit.
  store::Status share_snapshot(std::shared_ptr<store::ReadSnapshot>* out);

  // Before reading without the write transaction: the index is caught up with the log as this
  // connection's SQLite snapshot sees it, and *visible is what that snapshot sees of the log:
  // its last transaction counter (facts are read as of it) and its last row (rules are).
  struct Visible {
    std::uint64_t tx = UINT64_MAX, seq = UINT64_MAX;
  };
  // *checked (when given) gets the snapshot that was found caught up, for the caller to read
  // through (null after a catch-up: share_snapshot then gives the new state). Without it, the
  // snapshot would end here and the caller's share_snapshot begin another LMDB read.
  store::Status prepare_read(Visible* visible, std::shared_ptr<store::ReadSnapshot>* checked = nullptr);
  // datalog_rebuild: the index made again from the whole log; *rows: the log rows replayed.
  store::Status rebuild(std::uint64_t* rows);
  // The log's last row as this connection sees it, and the row the index reflects.
  store::Status positions(std::uint64_t* log_seq, std::uint64_t* indexed_seq);
  // What the last index commit after SQLite's commit reported (ok, or why it is behind).
  const store::Status& last_index_error() const { return last_index_error_; }

  // Planner statistics, refreshed after this session commits.
  const store::GraphStats& stats();

  // The graph's rules, parsed, as of the committed state with LMDB transaction id txn_id (what
  // a read snapshot shows): a query that calls rules parses them once per state, not per call.
  // Shared, so a query keeps its rules while a nested one (through an SQL function) replaces them.
  using Rules = std::shared_ptr<const std::vector<ast::Rule>>;
  Rules cached_rules(std::uint64_t txn_id, std::uint64_t seq) const {
    return rules_txn_id_ == txn_id && rules_seq_ == seq ? rules_ : nullptr;
  }
  void remember_rules(std::uint64_t txn_id, std::uint64_t seq, Rules rules) {
    rules_txn_id_ = txn_id;
    rules_seq_ = seq;
    rules_ = std::move(rules);
  }

 private:
  store::Status catch_up(const GraphLog::Tip& tip, bool writing, std::uint64_t* replayed = nullptr,
                         bool force_rebuild = false);
  // Whether snapshot's index serves a statement whose log ends at tip; *behind: it is behind.
  store::Status serves(store::ReadSnapshot& snapshot, const GraphLog::Tip& tip, bool* usable, bool* behind);
  store::Status catch_up_once(const GraphLog::Tip& tip, bool writing, std::uint64_t* replayed,
                              bool force_rebuild);
  void index_changed();
  store::Status replace_damaged_index();
  store::Status check_index_room(const std::vector<store::LogRow>& rows) const;
  store::Status write_owner(store::WriteTxn& w, const std::string& uuid);
  std::string database_file_id() const;  // "device:inode" of the database file

  std::shared_ptr<store::GraphEnv> env_;
  std::chrono::milliseconds busy_timeout_;
  std::size_t write_page_bytes_ = std::size_t{kDefaultWriteMemoryMb} << 20;
  static constexpr std::size_t kRunsPerPageBudget = 8;  // begin_write: sorted runs' bound
  std::unique_ptr<GraphLog> log_;
  ProbeStatements probe_statements_;
  store::SpareScan spare_scan_;
  std::string database_path_, derived_index_path_;
  bool owner_checked_ = false;
  store::Status last_index_error_;
  std::unique_ptr<store::WriteTxn> writer_;
  std::weak_ptr<store::ReadSnapshot> snapshot_;
  store::GraphStats stats_;
  bool stats_stale_ = true;
  std::optional<Schema> schema_;
  std::uint64_t rules_txn_id_ = 0, rules_seq_ = 0;
  Rules rules_;
  // The index's log position in the committed state position_state_ of position_env_: a state
  // never changes once committed, so each read does not ask LMDB again (two lookups per query).
  const store::GraphEnv* position_env_ = nullptr;
  std::uint64_t position_state_ = 0;
  store::IndexPosition position_;
};

}  // namespace datalog::ext
