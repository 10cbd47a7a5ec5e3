#include "extension/graph_session.h"

#include "extension/index_path.h"

#include <thread>

#include <fmt/format.h>

#include "extension/replay_progress.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

namespace {

using store::IndexPosition;

bool at_tip(const IndexPosition& pos, const GraphLog::Tip& tip) {
  return pos.seq == tip.seq && (tip.seq == 0 || pos.time == static_cast<std::uint64_t>(tip.tx_time_ms));
}

}  // namespace

GraphSession::~GraphSession() { rollback(); }

// --- the index's owner -----------------------------------------------------------------------

// Once per session, before the first read or write: the table has a log (a table of the first
// storage format has none), the index is of a format that indexes a log, and it belongs to this
// table's graph. An index of another graph is refused when the application named its file (it
// may be another database's); at the derived path it can only be stale, and is rebuilt.
Status GraphSession::check_log_and_owner() {
  if (env_->damaged()) DATALOG_RETURN_IF_ERROR(replace_damaged_index());
  if (owner_checked_) return Status::OK();
  if (!log_) return Status(StatusCode::Internal, "the graph has no log attached");
  bool exists = false;
  std::string uuid;
  DATALOG_RETURN_IF_ERROR(log_->identity(&exists, &uuid));
  const std::string table = fmt::format("{}.{}", log_->schema(), log_->table());
  if (!exists || env_->format_version() < 2) {
    return Status(StatusCode::NotAGraph,
                  fmt::format("table {} was made by the first storage format, where graph '{}' held "
                              "the only copy of the facts; import it into a new table with "
                              "CREATE VIRTUAL TABLE g2 USING datalog; SELECT datalog_import_v1('g2', "
                              "'{}')",
                              table, env_->path(), env_->path()));
  }
  if (database_path_.empty()) {  // a private temporary index: nobody else can name it
    owner_checked_ = true;
    return Status::OK();
  }
  store::IndexOwner owner;
  {
    std::unique_ptr<store::ReadSnapshot> snapshot;
    DATALOG_RETURN_IF_ERROR(store::ReadSnapshot::begin(env_, &snapshot));
    DATALOG_RETURN_IF_ERROR(snapshot->owner(&owner));
  }
  const std::string& owner_uuid = owner.uuid;
  const std::string& owner_database = owner.database;
  const std::string& owner_table = owner.table;
  const std::string file = database_file_id();
  // An index of an older layout (format 2: keys of fixed-width numbers) is emptied and rebuilt
  // from the log in this build's layout: the index is derived data.
  const bool old_layout = env_->format_version() < store::kFormatVersion;
  Status st;
  if (owner_uuid == uuid && owner_database == database_path_ && owner_table == log_->table() &&
      owner.file == file && !old_layout) {
    owner_checked_ = true;
    return Status::OK();
  }
  const bool derived = env_->path() == derived_index_path_;
  const bool same_database = owner_database == database_path_;
  const bool same_graph = owner_uuid == uuid;
  // Refused: the index of another table of this database, or (a file the table names) of
  // another database or a copy of this one, which may still use it. Claimed: a new index; this
  // graph's, moved with its database or renamed; a stale one of a dropped table of this name, or
  // at the derived path of another graph (then rebuilt from the log).
  const bool other_table = same_database && owner_table != log_->table() && !same_graph;
  const bool other_database = !same_database && !derived;
  if (!owner_uuid.empty() && (other_table || other_database)) {
    return Status(StatusCode::CantOpen,
                  fmt::format("graph '{}' is the index of table {} of {}; a graph belongs to one "
                              "database and one table (table {}: leave out the file name to use its "
                              "own index, '{}')",
                              env_->path(), owner_table,
                              same_database ? "this database"
                                            : fmt::format("another database ('{}')", owner_database),
                              table, derived_index_path_));
  }
  // Claim the index. Kept only when it was made for this very database file (a table renamed):
  // an index that came with a copy of the database, or from anywhere else, is not trusted —
  // LMDB reads its pages without checks — and is rebuilt from the log, as is a stale one.
  std::unique_ptr<store::WriteTxn> w;
  DATALOG_RETURN_IF_ERROR(store::WriteTxn::begin(env_, busy_timeout_, &w));
  if (old_layout || (!owner_uuid.empty() && (owner_uuid != uuid || owner.file != file))) {
    st = w->clear_index();
  }
  if (st.ok()) st = write_owner(*w, uuid);
  if (st.ok()) st = w->commit();
  if (!st.ok()) return st;
  if (old_layout) env_->set_format_version(store::kFormatVersion);
  index_changed();
  owner_checked_ = true;
  return Status::OK();
}

// The index faulted on a damaged page (page_fault_guard.h): it is never read again. A new,
// empty one takes its place (the first connection of the process to get here makes it, the
// others share it), and the owner check below claims it and rebuilds it from the log.
Status GraphSession::replace_damaged_index() {
  if (writer_) {
    return Status(StatusCode::Corrupt,
                  fmt::format("the index '{}' was found damaged during this transaction; roll it "
                              "back, and the next statement rebuilds the index from the log",
                              env_->path()));
  }
  std::shared_ptr<store::GraphEnv> fresh;
  DATALOG_RETURN_IF_ERROR(store::GraphEnv::replace_damaged(*env_, &fresh));
  env_ = std::move(fresh);
  owner_checked_ = false;
  position_env_ = nullptr;
  index_changed();
  return Status::OK();
}

Status GraphSession::write_owner(store::WriteTxn& w, const std::string& uuid) {
  return store::write_index_owner(w, store::IndexOwner{uuid, database_path_, log_->table(), database_file_id()});
}

std::string GraphSession::database_file_id() const { return file_identity(database_path_); }

// --- keeping the index caught up ---------------------------------------------------------------

void GraphSession::index_changed() {
  snapshot_.reset();
  stats_stale_ = true;
  rules_.reset();
  rules_txn_id_ = 0;
}

// Brings the index to the log's tip as this connection sees it. A writer (holding SQLite's
// write lock, so seeing the newest log) also treats an index ahead of the log as wrong: it
// holds transactions the database does not (an older database restored under a newer index).
Status GraphSession::catch_up(const GraphLog::Tip& tip, bool writing, std::uint64_t* replayed,
                              bool force_rebuild) {
  // A replay that fills the map has grown it (WriteTxn::fail): it runs again, rather than fail
  // the caller's statement with SQLITE_FULL, which would roll back the caller's transaction.
  constexpr int kAttempts = 4;
  Status st;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    st = catch_up_once(tip, writing, replayed, force_rebuild);
    if (st.code() != StatusCode::MapGrown) break;
  }
  return st;
}

Status GraphSession::catch_up_once(const GraphLog::Tip& tip, bool writing, std::uint64_t* replayed,
                                   bool force_rebuild) {
  std::unique_ptr<store::WriteTxn> w;
  DATALOG_RETURN_IF_ERROR(store::WriteTxn::begin(env_, busy_timeout_, &w));
  IndexPosition pos;
  DATALOG_RETURN_IF_ERROR(store::index_position(*w, &pos));
  // An unfinished transaction's records (a writer that committed its index part way, then
  // crashed or rolled back: WriteTxn::commit_interim) can only be taken out by a rebuild.
  if (!force_rebuild && !pos.unfinished && at_tip(pos, tip)) return Status::OK();  // caught up by someone else
  bool rebuild = force_rebuild || pos.unfinished || (writing && pos.seq > tip.seq);
  if (!rebuild && pos.seq > tip.seq) return Status::OK();  // ahead of an older snapshot: bounded
  if (!rebuild && pos.seq > 0) {
    // The row the index ends at must be the log's: else the log was replaced under it.
    bool found = false;
    std::uint64_t tx = 0;
    std::int64_t time = 0;
    DATALOG_RETURN_IF_ERROR(log_->row(pos.seq, &found, &tx, &time));
    rebuild = !found || static_cast<std::uint64_t>(time) != pos.time;
  }
  if (rebuild) {
    DATALOG_RETURN_IF_ERROR(w->clear_index());
    // The owner goes in first: a rebuild commits in parts (below), and an index without one
    // would be taken for a stale file and removed by the next connection that opens it.
    if (!database_path_.empty()) {
      std::string uuid;
      DATALOG_RETURN_IF_ERROR(log_->uuid(&uuid));
      DATALOG_RETURN_IF_ERROR(write_owner(*w, uuid));
    }
  }
  std::uint64_t rows = 0;
  const std::uint64_t from = rebuild ? 0 : pos.seq;
  ReplayProgress progress(fmt::format("{} the index of {}.{}", rebuild ? "rebuilding" : "catching up",
                                      log_->schema(), log_->table()),
                          tip.seq - from);
  const auto replay = [&](const store::LogRow& row) {
    ++rows;
    progress.row_done();
    DATALOG_RETURN_IF_ERROR(w->replay_row(row));
    // A long replay commits the index in parts, as a large transaction does, so it holds at most
    // write_page_bytes_ of LMDB's private page copies: a rebuild of 1M facts held 160 MB.
    // Until the last part, the index's position stays behind the log (0 after a clear) and the
    // unfinished mark stands: no reader uses it, and a crash leaves it to be rebuilt.
    if (w->at_root() && w->past_dirty_bound(write_page_bytes_)) return w->commit_interim();
    return Status::OK();
  };
  DATALOG_RETURN_IF_ERROR(log_->read(from, tip.seq, replay));
  DATALOG_RETURN_IF_ERROR(w->finish_replay());
  DATALOG_RETURN_IF_ERROR(w->set_indexed(tip.seq, tip.tx_time_ms));
  DATALOG_RETURN_IF_ERROR(w->commit());
  index_changed();
  if (replayed) *replayed = rows;
  return Status::OK();
}

// Whether snapshot's index serves a statement whose log ends at tip: at the tip, or ahead of
// it (another connection committed since the statement's snapshot began) when the index holds
// tip's transaction as the log has it; the bound hides the rest. *behind: the index is behind.
Status GraphSession::serves(store::ReadSnapshot& snapshot, const GraphLog::Tip& tip, bool* usable,
                            bool* behind) {
  if (position_env_ != env_.get() || position_state_ != snapshot.id() || position_state_ == 0) {
    DATALOG_RETURN_IF_ERROR(snapshot.position(&position_));
    position_env_ = env_.get();
    position_state_ = snapshot.id();
  }
  const IndexPosition& pos = position_;
  *behind = pos.seq < tip.seq;
  *usable = at_tip(pos, tip);
  if (!*usable && pos.seq > tip.seq) {
    std::optional<std::int64_t> time;
    if (tip.seq != 0) DATALOG_RETURN_IF_ERROR(snapshot.tx_time(tip.tx, &time));
    *usable = tip.seq == 0 || time == tip.tx_time_ms;
  }
  return Status::OK();
}

Status GraphSession::prepare_read(Visible* visible, std::shared_ptr<store::ReadSnapshot>* checked) {
  DATALOG_RETURN_IF_ERROR(check_log_and_owner());
  // The shared snapshot, when one is open, is what the reader will use: check it. Its state
  // lets a statement that holds no read transaction of the log's database keep its tip.
  std::shared_ptr<store::ReadSnapshot> snapshot;
  DATALOG_RETURN_IF_ERROR(share_snapshot(&snapshot));
  GraphLog::Tip tip;
  DATALOG_RETURN_IF_ERROR(log_->tip(&tip, snapshot->id()));
  visible->tx = tip.tx;
  visible->seq = tip.seq;
  bool usable = false, behind = false;
  DATALOG_RETURN_IF_ERROR(serves(*snapshot, tip, &usable, &behind));
  // Behind: mostly a writer is between SQLite's commit and the index's (xCommit, an unsynced
  // LMDB commit: tens of microseconds). Catching up takes the writer gate, which that writer may
  // take again at once for its next transaction, holding it through SQLite's sync, and a reader
  // in another process polls for it every few milliseconds. So wait for the index first, with
  // fresh snapshots, for as long as a commit of the index takes, then catch up.
  constexpr auto kIndexCommitWait = std::chrono::milliseconds(5);
  // (Not while this thread holds the gate itself: the index cannot move then.)
  const bool can_move = !usable && behind && !env_->writer_held_by_this_thread();
  const auto deadline =
      can_move ? std::chrono::steady_clock::now() + kIndexCommitWait : std::chrono::steady_clock::time_point{};
  for (int attempt = 0; !usable && behind && can_move; ++attempt) {
    if (std::chrono::steady_clock::now() >= deadline) break;
    const std::uint64_t seen = snapshot->id();
    snapshot.reset();
    if (attempt < 16) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    DATALOG_RETURN_IF_ERROR(share_snapshot(&snapshot));
    if (snapshot->id() == seen && snapshot.use_count() > 1) break;  // held by another cursor
    DATALOG_RETURN_IF_ERROR(serves(*snapshot, tip, &usable, &behind));
  }
  if (usable) {
    if (checked) *checked = std::move(snapshot);
    return Status::OK();
  }
  snapshot.reset();
  return catch_up(tip, false);
}

Status GraphSession::positions(std::uint64_t* log_seq, std::uint64_t* indexed_seq) {
  DATALOG_RETURN_IF_ERROR(check_log_and_owner());
  GraphLog::Tip tip;
  DATALOG_RETURN_IF_ERROR(log_->tip(&tip));
  *log_seq = tip.seq;
  std::unique_ptr<store::ReadSnapshot> snapshot;
  DATALOG_RETURN_IF_ERROR(store::ReadSnapshot::begin(env_, &snapshot));
  IndexPosition pos;
  DATALOG_RETURN_IF_ERROR(snapshot->position(&pos));
  *indexed_seq = pos.seq;
  return Status::OK();
}

Status GraphSession::rebuild(std::uint64_t* rows) {
  DATALOG_RETURN_IF_ERROR(check_log_and_owner());
  if (writer_) {
    return Status(StatusCode::Misuse, "cannot rebuild the index inside a transaction that writes the graph");
  }
  GraphLog::Tip tip;
  log_->forget_tip();
  DATALOG_RETURN_IF_ERROR(log_->tip(&tip));
  return catch_up(tip, false, rows, /*force_rebuild=*/true);
}

// --- writing -----------------------------------------------------------------------------------

// Every graph writer holds LMDB's writer gate from here until the index has committed, and
// appends its log rows while it holds it: so under the gate the log's tip is final, and the
// index, once caught up, agrees with it.
Status GraphSession::begin_write(std::chrono::milliseconds busy_timeout) {
  if (writer_) return writer_->failure();
  schema_.reset();  // another connection may have changed it since
  DATALOG_RETURN_IF_ERROR(check_log_and_owner());
  for (int attempt = 0;; ++attempt) {
    DATALOG_RETURN_IF_ERROR(store::WriteTxn::begin(env_, busy_timeout, &writer_));
    GraphLog::Tip tip;
    IndexPosition pos;
    log_->forget_tip();
    Status st = log_->tip(&tip);
    if (st.ok()) st = store::index_position(*writer_, &pos);
    if (!st.ok()) {
      writer_.reset();
      return st;
    }
    if (at_tip(pos, tip) && !pos.unfinished && writer_->tx() == tip.tx + 1) {
      writer_->set_log_base(tip.seq);
      // The records waiting to go in sorted are memory beside LMDB's page copies, and each run
      // written dirties pages all over the indexes at once: an eighth of the page budget keeps
      // both near it (a 1M-triple import peaked at 161 MB of heap with 32 MiB runs, 90 MB now).
      writer_->set_deferral_bound(std::min(store::WriteTxn::kDeferredBytes, write_page_bytes_ / kRunsPerPageBudget));
      return Status::OK();
    }
    writer_.reset();
    if (attempt > 0) {
      return Status(StatusCode::Corrupt,
                    fmt::format("graph '{}': the index does not follow the log (indexed through row "
                                "{}, the log ends at row {}); run SELECT datalog_rebuild('{}')",
                                env_->path(), pos.seq, tip.seq, log_->table()));
    }
    DATALOG_RETURN_IF_ERROR(catch_up(tip, true));
  }
}

Status GraphSession::flush_log() {
  if (!writer_ || !writer_->open()) return Status::OK();
  if (!writer_->failure().ok()) return writer_->failure();
  if (!writer_->on_owner_thread()) {
    // LMDB ends a write transaction only on the thread that began it: refuse before SQLite
    // commits the log, so the commit fails whole.
    return Status(StatusCode::Misuse, "a graph transaction must be committed on the thread that began it");
  }
  if (!writer_->has_log()) return Status::OK();
  std::vector<store::LogRow> rows = writer_->take_log();
  DATALOG_RETURN_IF_ERROR(check_index_room(rows));
  DATALOG_RETURN_IF_ERROR(log_->append(rows, writer_->log_base()));
  return writer_->set_indexed(rows.back().seq, rows.back().tx_time_ms);
}

// The index commits after SQLite, where a failure can no longer fail the transaction: it would
// leave the index behind, and every read failing until the disk has room. So a transaction whose
// index pages may not fit on the disk fails here, before SQLite commits. Each log byte makes at
// most about kIndexBytesPerLogByte bytes of index pages (four indexes of ~60-byte keys against a
// ~70-byte record per fact, plus B-tree slack).
Status GraphSession::check_index_room(const std::vector<store::LogRow>& rows) const {
  constexpr std::uint64_t kIndexBytesPerLogByte = 6;
  constexpr std::uint64_t kMargin = std::uint64_t{1} << 20;
  std::uint64_t log_bytes = 0;
  for (const auto& row : rows) log_bytes += row.body.size();
  const std::uint64_t needed = log_bytes * kIndexBytesPerLogByte + kMargin;
  // A reading up to a second old will do while the disk has a GiB to spare beyond this
  // transaction (other writers may fill it meanwhile); closer to full, each commit asks again.
  constexpr std::uint64_t kSpare = std::uint64_t{1} << 30;
  constexpr auto kMaxAge = std::chrono::milliseconds(1000);
  std::uint64_t free_bytes = 0;
  if (env_->recent_free_disk_bytes(&free_bytes, kMaxAge) && free_bytes >= needed + kSpare) {
    return Status::OK();
  }
  if (!env_->free_disk_bytes(&free_bytes) || free_bytes >= needed) return Status::OK();
  return Status(StatusCode::Full,
                fmt::format("disk full: the index '{}' may need up to {} bytes for this transaction "
                            "and its filesystem has {} free; the transaction was rolled back and the "
                            "graph is as it was",
                            env_->path(), needed, free_bytes));
}

Status GraphSession::commit() {
  if (!writer_) return Status::OK();
  // SQLite has committed the log: an index that fails to follow is only behind, and the next
  // reader or writer catches it up from the log.
  last_index_error_ = writer_->open() ? writer_->commit() : Status::OK();
  writer_.reset();
  schema_.reset();
  log_->forget_tip();
  index_changed();
  return last_index_error_;
}

Status GraphSession::commit_alone() {
  if (!writer_) return Status::OK();
  Status st = flush_log();  // one statement: in autocommit mode, SQLite's commit
  if (!st.ok()) {
    rollback();
    return st;
  }
  commit();
  return Status::OK();
}

Status GraphSession::commit_part_if_due(std::size_t page_bytes) {
  if (!writer_ || !writer_->open() || !writer_->at_root() || !writer_->past_dirty_bound(page_bytes)) {
    return Status::OK();
  }
  return writer_->commit_interim();
}

void GraphSession::rollback() {
  writer_.reset();
  schema_.reset();
  if (log_) log_->forget_tip();
}

Status GraphSession::savepoint(int level) {
  return writer_ ? writer_->savepoint(level) : Status::OK();
}
Status GraphSession::release(int level) {
  return writer_ ? writer_->release(level) : Status::OK();
}
Status GraphSession::rollback_to(int level) {
  schema_.reset();  // the schema facts may have been rolled back
  return writer_ ? writer_->rollback_to(level) : Status::OK();
}

// --- reading -----------------------------------------------------------------------------------

Status GraphSession::share_snapshot(std::shared_ptr<store::ReadSnapshot>* out) {
  if (auto current = snapshot_.lock()) {
    *out = std::move(current);
    return Status::OK();
  }
  std::shared_ptr<store::ReadSnapshot> shared;
  DATALOG_RETURN_IF_ERROR(store::ReadSnapshot::begin(env_, &shared));
  snapshot_ = shared;
  *out = std::move(shared);
  return Status::OK();
}

const store::GraphStats& GraphSession::stats() {
  if (!stats_stale_) return stats_;
  if (writer_ && writer_->open()) {
    store::graph_stats(*writer_, &stats_);
    return stats_;  // still changing: read again next time
  }
  std::unique_ptr<store::ReadSnapshot> snapshot;
  if (store::ReadSnapshot::begin(env_, &snapshot).ok() && snapshot->graph_stats(&stats_).ok()) {
    stats_stale_ = false;
  }
  return stats_;
}

}  // namespace datalog::ext
