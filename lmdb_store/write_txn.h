// lmdb_store/write_txn.h: one write transaction on a graph: asserts, retractions, savepoints.
//
// A WriteTxn is what one SQLite transaction writes: every datom it records shares one
// transaction counter (the last committed counter + 1) and one wall time, assigned at begin.
// A transaction that writes nothing commits nothing and consumes no counter.
//
// Savepoints are LMDB nested transactions, one per open savepoint level. Each level keeps one
// cursor per index, opened in that level's LMDB transaction on first use; LMDB closes a write
// transaction's cursors when it ends, so a level's cursors go with it. Pending statistics
// and log records are kept in memory and written into the innermost LMDB transaction before a
// savepoint begins, when one is released and at commit, so a rollback to a savepoint discards
// exactly what was written since.
//
// Failure: after an LMDB error (a full disk or map, an I/O error) the whole transaction is
// aborted at once — nothing of it reaches the file — and every later call returns the same
// error until the owner calls abort(). A full map is grown for the next attempt.
//
// The log (storage v2, log_records.h): every call that changes the graph also appends its record
// to the transaction's log rows, cut back with the savepoints, which the owner takes at commit
// time (take_log) and writes into SQLite. A WriteTxn made to replay rows (replay_row) writes
// the records it reads and logs nothing.
//
// Thread safety: none; one owner at a time. LMDB requires the thread that began the
// transaction to commit or abort it; commit() from another thread returns Misuse.
// generation() changes whenever data or the innermost LMDB transaction changes, so readers that
// share the transaction know when to re-seek their cursors.
#pragma once

#include <lmdb.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/graph_env.h"
#include "lmdb_store/log_records.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/txn_idents.h"

namespace datalog::store {

class WriteTxn {
 public:
  static Status begin(std::shared_ptr<GraphEnv> env, std::chrono::milliseconds busy_timeout,
                      std::unique_ptr<WriteTxn>* out);
  ~WriteTxn();
  WriteTxn(const WriteTxn&) = delete;
  WriteTxn& operator=(const WriteTxn&) = delete;

  std::uint64_t tx() const { return tx_; }
  std::int64_t tx_time_ms() const { return tx_time_ms_; }
  MDB_txn* txn() const { return stack_.empty() ? nullptr : stack_.back().txn; }
  // The transaction for reading what this one wrote (ReadView, GraphAccess): the index records
  // still waiting to be written in order (write_deferred) go in first. Should that fail, the
  // transaction has failed (failure()) and cannot commit.
  MDB_txn* read_txn();
  // The transaction for reading idents and the rest of the catalog (not the datom indexes): the
  // ident records a writer holds back (catalog.h, IdentCursors) go in first.
  MDB_txn* catalog_read_txn();
  // How many bytes of index records wait before they go in (write_deferred): enough for a large
  // batch to go in sorted, little enough to bound a bulk load's memory. Tests set a small bound
  // to write a transaction in many sorted runs.
  static constexpr std::size_t kDeferredBytes = std::size_t{32} << 20;
  void set_deferral_bound(std::size_t bytes) { deferral_bound_ = bytes; }
  std::uint64_t generation() const;
  const Status& failure() const { return failure_; }
  GraphEnv& env() const { return *env_; }

  // Asserts (e, a, v) valid over [valid_from, valid_to).
  Status assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                     std::int64_t valid_to);
  // Retracts (e, a, v): every valid-time window of it, from this transaction on.
  // *stored (when given): false when the retraction was elided (the fact is not asserted).
  Status retract_fact(EntityId e, EntityId a, const Value& v, bool* stored = nullptr);
  // The entity named by a keyword or uuid, created when missing.
  Status resolve_ident(const Value& name, EntityId* id);
  // Rules persist in the graph with the transaction (a rolled-back rule is gone too).
  Status add_rule(const StoredRule& rule);
  Status remove_rules(const std::string& name, int* removed);

  // SQLite savepoint levels (0-based). Idempotent and tolerant of out-of-order calls.
  Status savepoint(int level);
  Status release(int level);
  Status rollback_to(int level);

  // Seals what was written so far as one graph transaction and goes on under the next counter,
  // in the same LMDB transaction: each command of a script gets a counter of its own (as in
  // Minigraf) and the script still commits, or rolls back, whole. No savepoint may be open. A
  // transaction that wrote nothing is not sealed and keeps its counter.
  Status next_transaction();
  // The log's last row when this transaction began: its rows follow it (rules record the row
  // that added or removed them, so readers of older log positions still see what they saw).
  void set_log_base(std::uint64_t seq) { log_base_ = seq; }
  std::uint64_t log_base() const { return log_base_; }
  // The log rows of what was written, in order (see log_records.h); the log is then empty.
  std::vector<LogRow> take_log();
  bool has_log() const { return !log_rows_.empty(); }
  // Replaying the log into the index: applies row as the transaction it records (its counter
  // and wall time), logging nothing. Rows must come in log order; finish_replay() seals the last.
  Status replay_row(const LogRow& row);
  Status finish_replay();
  // Writes a text entry of the index's metadata (meta.h), committed with the transaction.
  Status set_meta_text(std::string_view key, std::string_view value);
  // Empties every table of the index (a rebuild follows); only before anything is written.
  Status clear_index();
  // Records in the index the log position it now reflects (written with the commit).
  Status set_indexed(std::uint64_t seq, std::int64_t tx_time_ms);

  // A transaction that grows large (an import, a bulk load) may commit the index part way, so the
  // pages it changes need not all stay in memory: without MDB_WRITEMAP, LMDB keeps a private copy
  // of every page a write transaction dirties until it ends. The records so committed stay
  // invisible, since readers read no further than the log's last committed transaction, and
  // the log still commits once, with SQLite. Until commit() the index's meta says it holds an
  // unfinished transaction (meta.h kUnfinishedFrom), so after a crash or a rollback the next
  // writer rebuilds the index from the log. No savepoint may be open. The transaction can no
  // longer roll back to its start (rollback_all fails it whole).
  Status commit_interim();
  bool committed_in_part() const { return interim_commits_ > 0; }
  // Roughly how many bytes of pages this LMDB transaction has dirtied (since the last
  // commit_interim): what it holds in memory. Reads the size of the tables it wrote to.
  std::size_t dirty_estimate();
  // Whether the dirty estimate has passed bytes, cheap enough to ask after every row: the
  // estimate itself is worked out at most once per kPutsPerEstimate puts.
  bool past_dirty_bound(std::size_t bytes);
  // No savepoint is open (commit_interim may run).
  bool at_root() const { return stack_.size() == 1; }

  Status commit();  // writes everything (LMDB may defer the sync, GraphEnv); then closed
  void abort();     // discards everything; safe to call more than once
  bool open() const { return !stack_.empty(); }
  bool on_owner_thread() const { return std::this_thread::get_id() == owner_; }

 private:
  struct Level {
    MDB_txn* txn;
    int savepoint;  // SQLite savepoint level this LMDB transaction stands for; -1 for the root
    // What the counters were when this level began, restored when it is rolled back.
    std::uint64_t datoms_at_start = 0;
    bool dirty_at_start = false;
    std::size_t idents_at_start = 0;
    std::uint64_t elided_at_start = 0;
    std::size_t log_rows_at_start = 0, log_bytes_at_start = 0;
    bool log_consumes_at_start = false;
    // Cursors in txn, by IndexId; owned by LMDB, which frees them when txn ends.
    std::array<MDB_cursor*, kIndexCount> cursors{};
    IdentCursors idents{};  // on ident_names and ident_ids, the same way
    // Per index: whether the last key went in at the end (see put_record), and puts since.
    std::array<bool, kIndexCount> appending{true, true, true, true};
    std::array<std::uint32_t, kIndexCount> puts_since_append{};
  };
  struct StatsDelta {
    std::int64_t records = 0, entities = 0, values = 0;
  };

  WriteTxn(std::shared_ptr<GraphEnv> env) : env_(std::move(env)) {}
  Status index_cursor(IndexId index, MDB_cursor** cursor);
  Status ident_cursors(IdentCursors** out);  // this level's, kept (catalog.h)
  Status cached_cursor(MDB_dbi dbi, MDB_cursor*& cached, MDB_cursor** cursor);
  // last_appended (when given): the key the previous put_record to index appended, empty when it
  // appended none or anything else wrote to index since; updated for the next call.
  Status put_record(IndexId index, std::string_view key, std::string_view valid_to, EntityId a,
                    bool* inserted, std::string_view* last_appended = nullptr);
  Status delete_record(IndexId index, const Datom& d);
  Status write_datom(const Datom& d);
  Status erase_datom(const Datom& d);
  void remember_found_ident(const Value& name, EntityId id);
  // name's ident (*id), made with new_id when it has none (*created) through the writer's ident
  // cursors; a new ident's records count toward the dirty estimate, in a replay too.
  Status find_or_create_ident(const Value& name, EntityId new_id, EntityId* id, bool* created);
  // A new ident's two records, for dirty_estimate.
  void count_ident_puts(const Value& name, bool name_appended);
  Status find_at_tx(EntityId e, EntityId a, const Value& v, Op op, std::vector<Datom>* found);
  Status last_record(EntityId e, EntityId a, const Value& v, std::optional<Datom>* last);
  Status has_record(EntityId e, EntityId a, const Value& v, std::uint64_t tx, Op op, bool* found);
  Status flush_pending();
  // Index records wait in deferred_ (EAVT's only while the writer has not retracted: it reads
  // EAVT to decide retractions and reassertions, and writes what waits before it does) and go in
  // sorted, so their pages are written in order and filled (LMDB appends a record that sorts
  // last), when the transaction is read, nests, commits or holds kDeferredBytes of them.
  Status defer_record(IndexId index, std::string_view key, EntityId a);
  Status write_deferred();
  Status seal_transaction();  // the log header and counters of transaction tx_
  Status write_tx_header(std::uint64_t datoms);  // tx_'s time and datom count in txlog
  // The time of transaction tx as this writer knows it (its own, or a committed one's);
  // kUnknownTxTime when there is none.
  std::int64_t time_of_tx(std::uint64_t tx);
  // Decoding the writer's own reads of EAVT: times from time_of_tx.
  class OwnTxTimes final : public TxTimes {
   public:
    explicit OwnTxTimes(WriteTxn& w) : w_(w) {}

   private:
    bool look_up(std::uint64_t tx, std::int64_t* ms) override;
    WriteTxn& w_;
  };
  Status rollback_all();
  Status fail(Status st);  // aborts everything after an LMDB error
  void discard_pending();
  void touch() { touched_ = true; }  // generation() moves on when next asked
  Level new_level(MDB_txn* txn, int savepoint) const;
  LogRow* log_row();  // the row records of tx_ go to now; null while replaying
  class Replayer;

  std::shared_ptr<GraphEnv> env_;
  std::vector<Level> stack_;
  std::thread::id owner_;
  std::uint64_t tx_ = 0;
  std::uint64_t first_tx_ = 0;  // tx_ at begin; later ones come from next_transaction()
  std::int64_t tx_time_ms_ = 0;
  bool sealed_ = false;  // next_transaction() sealed a transaction that commit() must keep
  // A new generation is drawn (one atomic increment) when asked for after a change, not at every
  // change: a bulk load changes the data at every row and is asked at few.
  mutable std::uint64_t generation_ = 0;
  mutable bool touched_ = false;
  bool dirty_ = false;
  bool retracted_ = false;  // a retraction happened: asserts must look for one at this tx
  std::uint64_t datom_count_ = 0;
  std::uint64_t header_tx_ = 0;  // the transaction whose header is in txlog already (0: none)
  std::uint64_t elided_count_ = 0;  // retractions not stored: they still consume the counter
  std::map<EntityId, StatsDelta> pending_stats_;
  struct DeferredRecord {
    std::uint32_t at = 0;  // in DeferredIndex::bytes
    std::uint16_t key_size = 0, data_size = 0;  // LMDB's keys take at most 511 bytes
    // The key's first 8 bytes as a big-endian number (zeros past its end): the sort compares
    // these first, and the whole keys only where they are equal. Keys of one index share long
    // prefixes, so comparing them whole cost a call to memcmp for most of the sort's steps.
    std::uint64_t head = 0;
    EntityId a = 0;
  };
  struct DeferredIndex {
    std::string bytes;  // key, then data, of each record
    std::vector<DeferredRecord> records;
  };
  std::array<DeferredIndex, kIndexCount> deferred_;
  std::size_t deferred_bytes_ = 0;
  std::size_t deferral_bound_ = kDeferredBytes;
  std::int64_t pending_records_ = 0, pending_entities_ = 0;
  Status failure_;
  // Idents: those of this transaction (not yet committed), and the first id this transaction
  // may create (read once; every ident with a smaller id was committed before it began).
  TxnIdents txn_idents_;
  EntityId first_new_ident_ = 0;  // 0: not read yet
  EntityId next_ident_ = 0;       // the next ident id, kept in memory; 0: read it from LMDB
  bool next_ident_dirty_ = false;  // next_ident_ is ahead of LMDB's counter
  bool logging_ = true;  // false while replaying
  std::uint64_t log_base_ = 0;    // set_log_base
  std::uint64_t replay_seq_ = 0;  // the row being replayed
  std::uint64_t current_log_seq();  // the log row what is written now goes into
  std::vector<LogRow> log_rows_;
  // Reused for every record written, so writing allocates nothing once they have grown.
  std::string eavt_key_, index_key_, valid_to_;
  std::string record_data_;  // put_record: valid-to and check byte of the record it writes
  // For dirty_estimate: bytes appended at the end of a table (they fill fresh pages) and puts
  // anywhere else (each may dirty a page of its own), since the last commit.
  std::size_t appended_bytes_ = 0, placed_puts_ = 0;
  std::size_t puts_ = 0, puts_at_estimate_ = 0;  // for past_dirty_bound
  static constexpr std::size_t kPutsPerEstimate = 4096;
  static constexpr std::size_t kPage = 4096;  // LMDB's page on the platforms we build for
  int interim_commits_ = 0;
  void count_put(bool appended, std::size_t bytes);
  Status mark_unfinished();
};

}  // namespace datalog::store
