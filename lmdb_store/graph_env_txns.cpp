// lmdb_store/graph_env_txns.cpp: transactions on a graph's environment: the count of open ones
// (a map resize waits until none is open), idle read transactions kept for reuse, the writer
// gate (one writer per graph across threads and processes, SQLITE_BUSY after a timeout), and
// growing the map.
#include "lmdb_store/graph_env.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <thread>

#include <fmt/format.h>

#include "lmdb_store/page_fault_guard.h"

namespace datalog::store {

namespace {
// How often a writer waiting at the gate looks again.
constexpr auto kWriterPollInterval = std::chrono::milliseconds(2);
}  // namespace

// Readers of many threads start and end transactions at a high rate, so the bracket takes no
// mutex, and each thread counts itself on a cache line of its own (a shared counter would pass
// its line between the cores on every query). The counts and the flag are sequentially
// consistent: a resize that raised its flag before a reader counted itself in sees the count,
// or the reader sees the flag and backs off. A transaction may end on another thread than it
// began on, so one shard can go below zero; only the sum means anything.
namespace {
std::size_t this_thread_shard(std::size_t shards) {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t mine = next.fetch_add(1);
  return mine % shards;
}
}  // namespace

int GraphEnv::active_txns() const {
  int sum = 0;
  for (const TxnCount& c : active_txns_) sum += c.count.load();
  return sum;
}

void GraphEnv::enter_txn() {
  std::atomic<int>& mine = active_txns_[this_thread_shard(kShards)].count;
  for (;;) {
    mine.fetch_add(1);
    if (!resizing_.load()) return;
    leave_txn();
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !resizing_.load(); });
  }
}

void GraphEnv::leave_txn() {
  active_txns_[this_thread_shard(kShards)].count.fetch_sub(1);
  if (resizing_.load()) {
    std::lock_guard lock(mutex_);  // the resize waits on cv_ under mutex_: no lost wake-up
    cv_.notify_all();
  }
}

// Read transactions are reset, not aborted, when they end, and renewed for the next reader:
// renewing keeps the reader slot, so a query does not take the lock file's mutex to find one.
// A reset transaction holds no snapshot, so it pins no pages. Each thread looks at its own slot
// first, so threads that read at once do not pass a slot's line between them.
namespace {

// The slot arrays of idle and parked reads, taken and filled without a lock; each thread looks at
// its own slot first.
template <class Slots>
MDB_txn* take_from(Slots& slots) {
  const std::size_t first = this_thread_shard(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto& slot = slots[(first + i) % slots.size()];
    if (slot.txn.load(std::memory_order_relaxed) == nullptr) continue;
    if (MDB_txn* txn = slot.txn.exchange(nullptr, std::memory_order_acquire)) return txn;
  }
  return nullptr;
}

// Puts txn in the first empty slot, after before_filling(slot); false when every slot is taken.
template <class Slots, class BeforeFilling>
bool put_into(Slots& slots, MDB_txn* txn, const BeforeFilling& before_filling) {
  const std::size_t first = this_thread_shard(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    auto& slot = slots[(first + i) % slots.size()];
    if (slot.txn.load(std::memory_order_relaxed) != nullptr) continue;
    before_filling(slot);
    MDB_txn* empty = nullptr;
    if (slot.txn.compare_exchange_strong(empty, txn, std::memory_order_release)) return true;
  }
  return false;
}

}  // namespace

MDB_txn* GraphEnv::take_idle_read() { return take_from(idle_reads_); }

bool GraphEnv::keep_idle_read(MDB_txn* txn) {
  return put_into(idle_reads_, txn, [](IdleRead&) {});
}

void GraphEnv::abort_idle_reads() {
  for (IdleRead& slot : idle_reads_) {
    if (MDB_txn* txn = slot.txn.exchange(nullptr)) mdb_txn_abort(txn);
  }
  for (ParkedRead& slot : parked_reads_) {
    if (MDB_txn* txn = slot.txn.exchange(nullptr)) mdb_txn_abort(txn);
  }
}

std::uint64_t GraphEnv::last_committed() const {
  MDB_envinfo info{};
  mdb_env_info(env_, &info);
  return info.me_last_txnid;
}

MDB_txn* GraphEnv::take_parked_read() { return take_from(parked_reads_); }

bool GraphEnv::park_read(MDB_txn* txn) {
  // The sweep stamp first: a sweep that takes the transaction at once sees it new.
  return put_into(parked_reads_, txn, [this](ParkedRead& slot) {
    slot.sweep.store(sweeps_.load(std::memory_order_relaxed), std::memory_order_relaxed);
  });
}

void GraphEnv::reset_parked_reads(std::uint64_t parked_before) {
  for (ParkedRead& slot : parked_reads_) {
    if (slot.txn.load(std::memory_order_relaxed) == nullptr) continue;
    if (slot.sweep.load(std::memory_order_relaxed) >= parked_before) continue;
    MDB_txn* txn = slot.txn.exchange(nullptr, std::memory_order_acquire);
    if (txn == nullptr) continue;
    mdb_txn_reset(txn);
    if (!keep_idle_read(txn)) mdb_txn_abort(txn);
  }
}

void GraphEnv::sweep_parked_reads() {
  if (owner_pid_ != ::getpid()) return;  // inherited across fork(): the parent's transactions
  // Inside the bracket, so that a resize (which aborts parked reads itself) never runs meanwhile;
  // while one runs, this sweep is skipped rather than waited for (the watchdog must not block).
  std::atomic<int>& mine = active_txns_[this_thread_shard(kShards)].count;
  mine.fetch_add(1);
  if (!resizing_.load()) reset_parked_reads(sweeps_.fetch_add(1));
  leave_txn();
}

Status GraphEnv::begin_read(MDB_txn** txn) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    enter_txn();
    if (MDB_txn* parked = take_parked_read()) {
      // Still the newest state: the snapshot a renew would give, with its tables' roots known.
      if (mdb_txn_id(parked) == last_committed()) {
        *txn = parked;
        return Status::OK();
      }
      mdb_txn_reset(parked);
      if (!keep_idle_read(parked)) mdb_txn_abort(parked);
    }
    if (MDB_txn* idle = take_idle_read()) {
      if (mdb_txn_renew(idle) == MDB_SUCCESS) {
        *txn = idle;
        return Status::OK();
      }
      mdb_txn_abort(idle);  // a resized map and the like: a fresh transaction says what
    }
    const int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, txn);
    if (rc == MDB_SUCCESS) return Status::OK();
    leave_txn();
    if (rc == MDB_MAP_RESIZED) {
      DATALOG_RETURN_IF_ERROR(adopt_resize());
      continue;
    }
    if (rc == MDB_READERS_FULL) {
      int dead = 0;
      mdb_reader_check(env_, &dead);
      if (dead > 0) continue;
    }
    return status_from_mdb(rc, fmt::format("read graph '{}'", path_));
  }
  return Status(StatusCode::Busy, fmt::format("read graph '{}': could not begin a snapshot", path_));
}

void GraphEnv::end_read(MDB_txn* txn) {
  // Parked before leaving the bracket: a resize, which waits for the bracket to empty, then
  // finds it parked and aborts it.
  if (!parks_reads_ || resizing_.load() || mdb_txn_id(txn) != last_committed() || !park_read(txn)) {
    mdb_txn_reset(txn);
    if (!keep_idle_read(txn)) mdb_txn_abort(txn);
  }
  leave_txn();
}

Status GraphEnv::before_commit() {
  return marker_ ? marker_->mark_dirty() : Status::OK();
}

Status GraphEnv::acquire_writer(std::chrono::milliseconds timeout) {
  if (read_only_) {
    return Status(StatusCode::ReadOnly, fmt::format("graph '{}' is read-only", path_));
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  {
    std::unique_lock lock(mutex_);
    if (orphan_txn_ && orphan_owner_ == std::this_thread::get_id()) {
      mdb_txn_abort(orphan_txn_);  // on its own thread at last: LMDB's lock is released
      orphan_txn_ = nullptr;
      active_txns_[0].count.fetch_sub(1);  // shards only add up
      ::flock(writer_lock_fd_, LOCK_UN);
      writer_busy_ = false;
      writer_thread_ = {};
      cv_.notify_all();
    }
    if (orphan_txn_) {
      return Status(StatusCode::Busy,
                    fmt::format("graph '{}' is locked by a transaction that was ended on another "
                                "thread; the thread that began it must use the graph again",
                                path_));
    }
    if (writer_busy_ && writer_thread_ == std::this_thread::get_id()) {
      return Status(StatusCode::Busy,
                    fmt::format("graph '{}' is being written by another connection on this thread",
                                path_));
    }
    if (!cv_.wait_until(lock, deadline, [&] { return !writer_busy_; })) {
      return Status(StatusCode::Busy,
                    fmt::format("graph '{}' is locked by another writer in this process (waited "
                                "{} ms)",
                                path_, timeout.count()));
    }
    writer_busy_ = true;
    writer_thread_ = std::this_thread::get_id();
  }
  while (::flock(writer_lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK && errno != EINTR) {
      const int err = errno;
      release_writer();
      return Status(StatusCode::IoError,
                    fmt::format("lock graph '{}' for writing: {}", path_, strerror(err)));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      std::lock_guard lock(mutex_);
      writer_busy_ = false;
      writer_thread_ = {};
      cv_.notify_all();
      return Status(StatusCode::Busy,
                    fmt::format("graph '{}' is locked by a writer in another process (waited "
                                "{} ms)",
                                path_, timeout.count()));
    }
    std::this_thread::sleep_for(kWriterPollInterval);
  }
  return Status::OK();
}

void GraphEnv::release_writer() {
  ::flock(writer_lock_fd_, LOCK_UN);
  std::lock_guard lock(mutex_);
  writer_busy_ = false;
  writer_thread_ = {};
  cv_.notify_all();
}

void GraphEnv::orphan_write(MDB_txn* txn, std::thread::id owner) {
  std::lock_guard lock(mutex_);
  orphan_txn_ = txn;
  orphan_owner_ = owner;
  writer_thread_ = owner;
}

bool GraphEnv::writer_held_by_this_thread() const {
  std::lock_guard lock(mutex_);
  return writer_busy_ && writer_thread_ == std::this_thread::get_id();
}

Status GraphEnv::begin_write(MDB_txn** txn) {
  maybe_grow_before_write().ok();  // best effort: a failed early growth is retried on MAP_FULL
  for (int attempt = 0; attempt < 3; ++attempt) {
    enter_txn();
    const int rc = mdb_txn_begin(env_, nullptr, 0, txn);
    if (rc == MDB_SUCCESS) return Status::OK();
    leave_txn();
    if (rc == MDB_MAP_RESIZED) {
      DATALOG_RETURN_IF_ERROR(adopt_resize());
      continue;
    }
    return status_from_mdb(rc, fmt::format("write graph '{}'", path_));
  }
  return Status(StatusCode::Busy, fmt::format("write graph '{}': could not begin", path_));
}

std::size_t GraphEnv::map_bytes() const {
  MDB_envinfo info{};
  mdb_env_info(env_, &info);
  return info.me_mapsize;
}

Status GraphEnv::maybe_grow_before_write() {
  MDB_envinfo info{};
  MDB_stat stat{};
  mdb_env_info(env_, &info);
  mdb_env_stat(env_, &stat);
  const std::size_t used = (info.me_last_pgno + 1) * static_cast<std::size_t>(stat.ms_psize);
  if (used * 2 < info.me_mapsize) return Status::OK();
  return set_map_size_quiesced(info.me_mapsize * 2, std::chrono::milliseconds(100));
}

Status GraphEnv::grow_map(std::chrono::milliseconds timeout) {
  // In one step to room for any transaction short of the default map (address space, not
  // disk): doubling a small map once per failure made a large transaction fail again and again.
  const std::size_t used = used_bytes();
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::size_t wanted = ((used + kDefaultMapBytes + kMiB - 1) / kMiB) * kMiB;
  return set_map_size_quiesced(std::max(map_bytes() * 2, wanted), timeout);
}

Status GraphEnv::adopt_resize() {
  return set_map_size_quiesced(0, std::chrono::milliseconds(5'000));
}

Status GraphEnv::set_map_size_quiesced(std::size_t bytes, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  if (!cv_.wait_until(lock, deadline, [&] { return !resizing_.load(); })) {
    return Status(StatusCode::Busy, fmt::format("graph '{}': map resize in progress", path_));
  }
  resizing_.store(true);
  const bool quiet = cv_.wait_until(lock, deadline, [&] { return active_txns() == 0; });
  int rc = MDB_SUCCESS;
  if (quiet) {
    abort_idle_reads();
    rc = mdb_env_set_mapsize(env_, bytes);
    if (rc == MDB_SUCCESS) refresh_map_range();  // the map may have moved
  }
  resizing_.store(false);
  cv_.notify_all();
  if (!quiet) {
    return Status(StatusCode::Busy,
                  fmt::format("graph '{}': cannot resize the map while other transactions of this "
                              "process are open",
                              path_));
  }
  return status_from_mdb(rc, fmt::format("resize the map of graph '{}'", path_));
}

}  // namespace datalog::store
