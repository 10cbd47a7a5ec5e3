// lmdb_store/graph_env.h: one open graph file (an LMDB environment) shared by a whole process.
//
// A graph is a single LMDB file (MDB_NOSUBDIR): `x.graph` plus LMDB's `x.graph-lock`. LMDB
// forbids opening one file twice in a process, so GraphEnv::open goes through a process-wide
// registry keyed by device and inode; every SQLite connection of the process that names the file
// shares one GraphEnv, which closes when the last shared_ptr goes.
//
// Named tables (all keys compare with memcmp; see key_coding.h and datom_layout.h):
//   eavt, aevt, avet, vaet  the four datom indexes (vaet holds references only)
//   ident_names, ident_ids  idents: encoded keyword/uuid -> entity id, and back
//   txlog                   per transaction: wall time and datom count, then its datoms
//   stats                   per attribute: records, distinct entities, distinct values
//   giants                  full text of values too long for a key, by hash
//   rules                   Datalog rules: sequence number -> name, source text
//   meta                    format version, last transaction, next ident id, totals
//
// Thread safety: every method is safe from any thread. LMDB's rules are enforced here:
// - Transactions: each LMDB transaction is bracketed by enter_txn()/leave_txn() so that the map
//   can be grown (which needs no live transaction in the process) when nobody is inside one.
// - Writers: acquire_writer() is a timed gate in front of mdb_txn_begin. It serialises writers
//   of this process (LMDB's own lock would deadlock two writers on one thread) and, with flock on
//   the lock file, writers of other processes, so a second writer gets Busy after its timeout
//   instead of blocking forever.
#pragma once

#include <lmdb.h>
#include <sys/types.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "datalog_version.h"
#include "lmdb_store/read_cache.h"
#include "lmdb_store/stuck_call_watchdog.h"
#include "lmdb_store/mdb_status.h"
#include "lmdb_store/sync_marker.h"

namespace datalog::store {

// 1: the graph file held the only copy of the facts. 2: it is an index of the log in SQLite.
// 3: the compact keys of docs/STORAGE.md. 4: long values keyed by 16 bytes of SHA-256 instead of
// 8 of FNV-1a. Set once, in CMakeLists.txt (datalog_version.h).
inline constexpr std::uint32_t kFormatVersion = DATALOG_FORMAT_VERSION;

struct Tables {
  MDB_dbi eavt = 0, aevt = 0, avet = 0, vaet = 0;
  MDB_dbi ident_names = 0, ident_ids = 0;
  MDB_dbi txlog = 0, stats = 0, giants = 0, meta = 0, rules = 0;
};

struct OpenOptions {
  // Make a new graph: create the file when missing, or the tables of an empty file. Off, only
  // an existing graph opens (connecting to a table from a schema must never create files).
  bool create = true;
  std::size_t initial_map_bytes = 0;       // 0: the default (kDefaultMapBytes or 2x file size)
  bool delete_on_close = false;            // private temporary graphs
};

inline constexpr std::size_t kDefaultMapBytes = std::size_t{64} << 30;  // address space only

class GraphEnv {
 public:
  ~GraphEnv();
  GraphEnv(const GraphEnv&) = delete;
  GraphEnv& operator=(const GraphEnv&) = delete;

  // Opens (or shares the already open) graph at path.
  static Status open(const std::string& path, const OpenOptions& options,
                     std::shared_ptr<GraphEnv>* out);

  // An LMDB call faulted on one of its pages, or LMDB reported it corrupt (page_fault_guard.h):
  // the index is damaged in place. Nothing reads it again; replace_damaged() makes a new one.
  void mark_damaged() { damaged_.store(true, std::memory_order_relaxed); }
  bool damaged() const { return damaged_.load(std::memory_order_relaxed); }
  // *out: a new, empty index at the damaged one's path (its files removed, unless another user
  // in this process already replaced them: then that one), opened as the damaged one was.
  static Status replace_damaged(const GraphEnv& damaged, std::shared_ptr<GraphEnv>* out);
  // False when [data, data + size) points into the map but past the pages the file holds: a
  // damaged node's size or page number. Reading there would raise SIGBUS outside any LMDB call.
  // Memory outside the map (a write transaction's dirty pages) is not checked.
  bool within_file(const void* data, std::size_t size);
  // The map and the file's end as last seen, for a walk that checks every record it reads: what
  // lies inside them is within the file, checked inline; anything else goes to within_file, which
  // refreshes them (the file may have grown, the map moved) and knows memory outside the map.
  struct SeenBounds {
    std::uintptr_t map_begin = 0, map_end = 0, file_end = 0;
    bool hold(const MDB_val& v) const {
      const auto at = reinterpret_cast<std::uintptr_t>(v.mv_data);
      return at >= map_begin && at < map_end && at <= file_end && v.mv_size <= file_end - at;
    }
  };
  SeenBounds seen_bounds() const {
    return {map_begin_.load(std::memory_order_relaxed), map_end_.load(std::memory_order_relaxed),
            file_end_.load(std::memory_order_relaxed)};
  }

  MDB_env* env() const { return env_; }
  const Tables& tables() const { return tables_; }
  const std::string& path() const { return path_; }
  bool read_only() const { return read_only_; }
  std::uint32_t format_version() const { return format_version_; }
  // After the index was emptied and made again in this build's format (WriteTxn::clear_index).
  void set_format_version(std::uint32_t version) { format_version_ = version; }

  // Bracket every LMDB transaction. enter_txn waits while the map is being grown.
  void enter_txn();
  void leave_txn();

  // Begins a read-only transaction (entering the bracket); adopts another process's map growth.
  Status begin_read(MDB_txn** txn);
  // Ends a read transaction begun by begin_read. One that shows the newest committed state is
  // parked, not reset: the next begin_read takes it as it is while no commit came in between.
  void end_read(MDB_txn* txn);
  // Resets the read transactions parked before the previous sweep (the watchdog's duty, a few
  // times a second): a parked one pins the pages of its state, which a writer in another process
  // would otherwise not reuse while this process sits idle.
  void sweep_parked_reads();

  // Writer gate: waits up to timeout for the in-process gate and the cross-process lock.
  Status acquire_writer(std::chrono::milliseconds timeout);
  void release_writer();
  bool writer_held_by_this_thread() const;
  // A write transaction aborted on a thread other than the one that began it: LMDB's lock stays
  // with that thread, so the graph stays locked (others get Busy) until the owner thread next
  // asks for the writer, which ends the transaction and releases everything.
  void orphan_write(MDB_txn* txn, std::thread::id owner);

  // Called by a writer (holding the gate) right before it commits: an index that commits without
  // syncing records that it may hold unsynced pages (sync_marker.h).
  Status before_commit();
  bool commits_unsynced() const { return nosync_; }

  // Begins the top-level write transaction (caller holds the writer gate). Grows the map first
  // when it is more than half used, and adopts another process's growth.
  Status begin_write(MDB_txn** txn);

  // Grows the map after MDB_MAP_FULL, in one step to the pages in use plus the default map size
  // (at least double). The caller has ended its transactions; waits up to timeout for the others
  // of this process to end.
  Status grow_map(std::chrono::milliseconds timeout);

  // The bytes an unprivileged writer may still use on the graph's filesystem; false if unknown.
  bool free_disk_bytes(std::uint64_t* out) const;
  // The same, from a reading at most max_age old when there is one: a commit far from a full
  // disk costs no statvfs.
  bool recent_free_disk_bytes(std::uint64_t* out, std::chrono::milliseconds max_age) const;

  // What the file and its readers look like now, for datalog_stats. A reader holding an old
  // snapshot keeps every page it may see from being reused, so the file grows while it lasts.
  struct Usage {
    std::uint64_t file_bytes = 0, map_bytes = 0, used_bytes = 0;
    std::uint64_t last_txnid = 0;   // LMDB's newest committed transaction id
    std::uint64_t readers = 0;      // snapshots open now, in every process
    std::uint64_t oldest_txnid = 0; // the oldest of them (0: none)
    long oldest_pid = 0;            // the process that holds it
  };
  // Resets this process's parked reads first: they are no snapshot anyone holds.
  Status usage(Usage* out);

  std::size_t map_bytes() const;

  // Idents and statistics that readers of this graph share (read_cache.h).
  ReadCache& read_cache() { return read_cache_; }
  const ReadCache& read_cache() const { return read_cache_; }

 private:
  GraphEnv() = default;
  Status open_file(const std::string& path, const OpenOptions& options);
  // open_file's steps: an index written without a sync before the system restarted is removed
  // (sync_marker.h); a file already there must be an LMDB file (*size: its size, else 0); then
  // LMDB opens it, a refusal mapped to a status.
  Status remove_if_unsynced(const std::string& path, const OpenOptions& options);
  Status check_existing_file(const std::string& path, const OpenOptions& options, off_t* size);
  Status open_lmdb(const std::string& path, const OpenOptions& options, off_t size);
  Status init_tables();
  Status check_not_truncated() const;
  std::uint64_t used_bytes() const;  // the pages in use, by the newest meta page
  Status adopt_resize();
  Status set_map_size_quiesced(std::size_t bytes, std::chrono::milliseconds timeout);
  Status maybe_grow_before_write();
  MDB_txn* take_idle_read();          // an idle read transaction to renew, or null
  bool keep_idle_read(MDB_txn* txn);  // false when every slot is taken
  // Aborts the idle and the parked ones: inside a resize (no transaction is open), or closing.
  void abort_idle_reads();
  // Parked reads (end_read): taken and given back without a lock, as idle ones.
  MDB_txn* take_parked_read();
  bool park_read(MDB_txn* txn);
  void reset_parked_reads(std::uint64_t parked_before);  // those parked before that sweep
  std::uint64_t last_committed() const;  // LMDB's newest committed state, from the meta pages

  StuckCallWatch watch_;  // first, so it stops last: after the environment closes
  MDB_env* env_ = nullptr;
  Tables tables_;
  std::string path_;
  bool read_only_ = false;
  bool nosync_ = false;                  // commits do not sync (the log in SQLite is durable)
  std::unique_ptr<SyncMarker> marker_;   // null for private temporary indexes
  std::uint32_t format_version_ = kFormatVersion;
  bool create_ = true;  // OpenOptions::create: may make the tables of an empty LMDB file
  bool delete_on_close_ = false;
  pid_t owner_pid_ = 0;
  int writer_lock_fd_ = -1;
  dev_t file_device_ = 0;
  ino_t file_inode_ = 0;
  std::size_t initial_map_bytes_ = 0;
  std::atomic<bool> damaged_{false};
  mutable std::atomic<std::uint64_t> free_disk_bytes_{0};
  mutable std::atomic<std::int64_t> free_disk_read_at_ns_{0};  // steady clock; 0: never read
  // The map and the end of the pages in use, as last seen (within_file refreshes them).
  std::atomic<std::uintptr_t> map_begin_{0}, map_end_{0}, file_end_{0};
  void refresh_file_end();
  void refresh_map_range();

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  // Open transactions of this process, counted per thread shard (enter_txn); sum: active_txns().
  struct alignas(64) TxnCount {
    std::atomic<int> count{0};
  };
  static constexpr std::size_t kShards = 8;
  std::array<TxnCount, kShards> active_txns_;
  int active_txns() const;
  std::atomic<bool> resizing_{false};  // set and cleared under mutex_
  bool writer_busy_ = false;
  std::thread::id writer_thread_;
  MDB_txn* orphan_txn_ = nullptr;
  std::thread::id orphan_owner_;

  ReadCache read_cache_;
  // Reset read transactions, renewed by begin_read; one per cache line, taken without a lock.
  struct alignas(64) IdleRead {
    std::atomic<MDB_txn*> txn{nullptr};
  };
  static constexpr std::size_t kMaxIdleReads = 8;
  std::array<IdleRead, kMaxIdleReads> idle_reads_;
  // Read transactions left open at the newest state by end_read. Renewing a reset transaction and
  // then finding each named table's root again (LMDB marks them stale at every renew) cost a
  // named point query about 800 of its 20,000 instructions.
  struct alignas(64) ParkedRead {
    std::atomic<MDB_txn*> txn{nullptr};
    std::atomic<std::uint64_t> sweep{0};  // sweeps_ when parked
  };
  std::array<ParkedRead, kMaxIdleReads> parked_reads_;
  std::atomic<std::uint64_t> sweeps_{0};
  bool parks_reads_ = false;  // only while the watchdog sweeps them
};

}  // namespace datalog::store
