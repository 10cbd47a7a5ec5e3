// extension/graph_session.h: one SQLite connection's use of one graph.
//
// Every store table (and, later, Datalog function) of a connection that names the same graph
// shares one GraphSession. It ties the graph to SQLite's transaction:
// - writes: the first xBegin of any of those tables begins one WriteTxn; xSync commits it (its
//   return code reaches the user, unlike xCommit's); savepoint calls map onto the WriteTxn's
//   nested transactions. Repeated calls from several tables are harmless.
// - reads: cursors read through the open WriteTxn (read-your-writes) or else through one read
//   snapshot shared by all cursors of the session, so a join sees one state of the graph; the
//   snapshot ends when the last cursor using it stops, so it never pins old pages for the life
//   of the connection.
// Thread safety: SQLite serialises calls on a connection; a session belongs to one connection.
#pragma once

#include <lmdb.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "engine/ast.h"
#include "engine/schema.h"
#include "lmdb_store/catalog.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/status.h"
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
  const std::shared_ptr<store::GraphEnv>& shared_env() const { return env_; }

  // --- writing ---
  // Idempotent; the busy timeout of whoever begins it applies (each table has its own).
  store::Status begin_write(std::chrono::milliseconds busy_timeout);
  store::Status begin_write() { return begin_write(busy_timeout_); }
  store::WriteTxn* writer() const { return writer_.get(); }  // null outside a transaction
  store::Status commit();                   // idempotent; ends the transaction
  void rollback();                          // idempotent
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
  // A read snapshot: ends its LMDB read transaction when its last holder lets go.
  class Snapshot {
   public:
    // Holds the graph open: a cursor may keep its snapshot after its table is gone.
    Snapshot(std::shared_ptr<store::GraphEnv> env, MDB_txn* txn) : env_(std::move(env)), txn_(txn) {}
    ~Snapshot() { env_->end_read(txn_); }
    Snapshot(const Snapshot&) = delete;
    Snapshot& operator=(const Snapshot&) = delete;
    MDB_txn* txn() const { return txn_; }

   private:
    std::shared_ptr<store::GraphEnv> env_;
    MDB_txn* txn_;
  };
  // The snapshot readers share now: the current one while any reader holds it, else a new one.
  // A commit by this session retires it, so later readers see the commit.
  store::Status share_snapshot(std::shared_ptr<Snapshot>* out);

  // Planner statistics, refreshed after this session commits.
  const store::GraphStats& stats();

  // The graph's rules, parsed, as of the committed state with LMDB transaction id txn_id (what
  // a read snapshot shows): a query that calls rules parses them once per state, not per call.
  // Shared, so a query keeps its rules while a nested one (through an SQL function) replaces them.
  using Rules = std::shared_ptr<const std::vector<ast::Rule>>;
  Rules cached_rules(std::uint64_t txn_id) const { return rules_txn_id_ == txn_id ? rules_ : nullptr; }
  void remember_rules(std::uint64_t txn_id, Rules rules) {
    rules_txn_id_ = txn_id;
    rules_ = std::move(rules);
  }

 private:
  std::shared_ptr<store::GraphEnv> env_;
  std::chrono::milliseconds busy_timeout_;
  std::unique_ptr<store::WriteTxn> writer_;
  std::weak_ptr<Snapshot> snapshot_;
  store::GraphStats stats_;
  bool stats_stale_ = true;
  std::optional<Schema> schema_;
  std::uint64_t rules_txn_id_ = 0;
  Rules rules_;
};

}  // namespace datalog::ext
