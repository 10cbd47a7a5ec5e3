// lmdb_store/graph_env.cpp: opening a graph file once per process (the registry of open
// environments), its tables, what it uses on disk, and the bounds of its pages in memory (for
// the damage checks of page_fault_guard.h). Transactions: graph_env_txns.cpp.
#include "lmdb_store/graph_env.h"

#include "lmdb_store/page_fault_guard.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "lmdb_store/meta.h"

namespace datalog::store {

namespace {

constexpr unsigned kMaxTables = 16;
constexpr unsigned kMaxReaders = 510;
constexpr auto kInitTimeout = std::chrono::milliseconds(10'000);

using FileId = std::pair<dev_t, ino_t>;

// The process-wide registry. Entries are weak: the GraphEnv closes with its last user.
struct Registry {
  std::mutex mutex;
  std::map<FileId, std::weak_ptr<GraphEnv>> open;
};

Registry& registry() {
  static auto* r = new Registry();  // never destroyed: outlives every static GraphEnv user
  return *r;
}

// LMDB's meta page starts with a 16-byte page header followed by the magic 0xBEEFC0DE (native
// byte order). Checking it first keeps mdb_env_open from creating a -lock file beside a file
// that is not a graph at all.
constexpr std::uint32_t kLmdbMagic = 0xBEEFC0DE;
constexpr std::uint32_t kLmdbDataVersion = 1;

// What LMDB reads from a meta page before it checks anything: the page header (16 bytes), then
// the magic, the format version, the map address and size, and the free list's table record,
// whose first field is the page size.
struct MetaStart {
  std::uint32_t magic, version;
  std::uint64_t address, map_size;
  std::uint32_t page_size;
};
constexpr std::size_t kMetaOffset = 16;

bool read_meta(int fd, off_t at, MetaStart* out) {
  return ::pread(fd, out, sizeof *out, at + static_cast<off_t>(kMetaOffset)) ==
         static_cast<ssize_t>(sizeof *out);
}

// LMDB divides by the page size its meta pages give and subtracts the page header from it
// without a check: a damaged size of 0 kills the process (SIGFPE in mdb_env_open), a small one
// wraps its arithmetic. Both meta pages (the second lies one page size in) must name the same
// power of two in LMDB's range.
bool meta_pages_sane(int fd) {
  MetaStart first{}, second{};
  if (!read_meta(fd, 0, &first)) return false;
  if (first.magic != kLmdbMagic || first.version != kLmdbDataVersion) return false;
  const std::uint32_t size = first.page_size;
  if (size < 512 || size > 65536 || (size & (size - 1)) != 0) return false;
  if (!read_meta(fd, size, &second)) return true;  // LMDB reports a missing second page itself
  return second.magic != kLmdbMagic || second.page_size == size;
}

// An LMDB file whose meta pages LMDB can open without harm.
bool looks_like_lmdb(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return true;  // let mdb_env_open report why it cannot be read
  const bool sane = meta_pages_sane(fd);
  ::close(fd);
  return sane;
}

bool file_id(const std::string& path, FileId* id, off_t* size = nullptr) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  *id = {st.st_dev, st.st_ino};
  if (size) *size = st.st_size;
  return true;
}

}  // namespace

Status GraphEnv::open(const std::string& path, const OpenOptions& options,
                      std::shared_ptr<GraphEnv>* out) {
  Registry& reg = registry();
  std::lock_guard lock(reg.mutex);
  FileId id;
  const bool exists = file_id(path, &id);
  if (exists) {
    auto it = reg.open.find(id);
    if (it != reg.open.end()) {
      if (auto shared = it->second.lock(); shared && shared->owner_pid_ == ::getpid()) {
        *out = std::move(shared);
        return Status::OK();
      }
    }
  } else if (!options.create) {
    return Status(StatusCode::CantOpen, fmt::format("graph file '{}' does not exist", path));
  }
  std::shared_ptr<GraphEnv> env(new GraphEnv());
  DATALOG_RETURN_IF_ERROR(env->open_file(path, options));
  // Known by the file LMDB opened (open_file's fstat), whatever the path names by now.
  if (env->file_inode_ == 0) {
    return Status(StatusCode::CantOpen, fmt::format("graph file '{}': cannot read its identity", path));
  }
  reg.open[FileId{env->file_device_, env->file_inode_}] = env;
  *out = std::move(env);
  return Status::OK();
}

// The end of the pages in use (the newest meta page's last page), as an address in the map.
void GraphEnv::refresh_file_end() {
  MDB_envinfo info{};
  MDB_stat stat{};
  if (mdb_env_info(env_, &info) != MDB_SUCCESS || mdb_env_stat(env_, &stat) != MDB_SUCCESS) return;
  file_end_.store(map_begin_.load(std::memory_order_relaxed) +
                      (static_cast<std::uintptr_t>(info.me_last_pgno) + 1) * stat.ms_psize,
                  std::memory_order_relaxed);
}

namespace {

// Calls on_line with each line of /proc/self/maps until it returns true. The list is read a
// block at a time, and no further than the line looked for: the kernel writes the list only as
// far as it is read, and a graph's map is usually among its first lines. (A stream that read the
// whole list a character at a time cost a tenth of opening a graph.)
template <typename OnLine>
void scan_process_maps(OnLine on_line) {
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  std::string pending;
  char block[4096];
  for (;;) {
    const ssize_t n = ::read(fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(block, static_cast<std::size_t>(n));
    std::size_t from = 0;
    for (std::size_t newline; (newline = pending.find('\n', from)) != std::string::npos; from = newline + 1) {
      if (on_line(std::string_view(pending).substr(from, newline - from))) {
        ::close(fd);
        return;
      }
    }
    pending.erase(0, from);
  }
  if (!pending.empty()) on_line(std::string_view(pending));  // a last line without its newline
  ::close(fd);
}

}  // namespace

// Where LMDB mapped the file: LMDB does not say (me_mapaddr is only set for MDB_FIXEDMAP), so
// the process's own map list is read. Only at open and after the map is resized.
void GraphEnv::refresh_map_range() {
  // A host process has hundreds of mappings: only the lines that hold the file's inode as a
  // field (" <inode> ", then the path) are parsed.
  const std::string needle = fmt::format(" {} ", static_cast<unsigned long>(file_inode_));
  scan_process_maps([&](std::string_view line) {
    if (line.find(needle) == std::string_view::npos) return false;
    const std::string text(line);  // sscanf reads a terminated string
    unsigned long begin = 0, end = 0, offset = 0, inode = 0;
    char perms[8] = {}, device[16] = {};
    if (std::sscanf(text.c_str(), "%lx-%lx %7s %lx %15s %lu", &begin, &end, perms, &offset, device,
                    &inode) != 6 ||
        inode != static_cast<unsigned long>(file_inode_) || offset != 0) {
      return false;
    }
    map_begin_.store(begin, std::memory_order_relaxed);
    map_end_.store(end, std::memory_order_relaxed);
    refresh_file_end();
    return true;
  });
}

bool GraphEnv::within_file(const void* data, std::size_t size) {
  const auto at = reinterpret_cast<std::uintptr_t>(data);
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::uintptr_t end = file_end_.load(std::memory_order_relaxed);
    if (at < map_begin_.load(std::memory_order_relaxed) ||
        at >= map_end_.load(std::memory_order_relaxed)) {
      return true;  // not in the map (a dirty page on the heap)
    }
    if (at <= end && size <= end - at) return true;
    // The file may have grown since (another writer), or the map moved.
    if (attempt == 0) {
      refresh_file_end();
    } else {
      refresh_map_range();
    }
  }
  return false;
}

Status GraphEnv::replace_damaged(const GraphEnv& damaged, std::shared_ptr<GraphEnv>* out) {
  {
    Registry& reg = registry();
    std::lock_guard lock(reg.mutex);
    FileId id;
    // Only the damaged file itself is removed: if the path already names another (a
    // connection of this or another process replaced it), that one is opened.
    if (file_id(damaged.path_, &id) && id == FileId{damaged.file_device_, damaged.file_inode_}) {
      for (const char* suffix : {"", "-lock", "-sync"}) ::unlink((damaged.path_ + suffix).c_str());
    }
  }
  OpenOptions options;
  options.create = true;
  options.delete_on_close = damaged.delete_on_close_;
  options.initial_map_bytes = damaged.initial_map_bytes_;
  return open(damaged.path_, options, out);
}

Status GraphEnv::open_file(const std::string& path, const OpenOptions& options) {
  path_ = path;
  owner_pid_ = ::getpid();
  delete_on_close_ = options.delete_on_close;
  create_ = options.create;
  initial_map_bytes_ = options.initial_map_bytes;
  // An index commits without syncing when a crash of the system can be detected (sync_marker.h);
  // a private temporary one always (it does not outlive the process).
  nosync_ = delete_on_close_ || !SyncMarker::boot_id().empty();
  DATALOG_RETURN_IF_ERROR(remove_if_unsynced(path, options));
  off_t size = 0;
  DATALOG_RETURN_IF_ERROR(check_existing_file(path, options, &size));
  DATALOG_RETURN_IF_ERROR(open_lmdb(path, options, size));
  DATALOG_RETURN_IF_ERROR(check_not_truncated());
  int fd = -1;
  struct stat opened {};
  if (mdb_env_get_fd(env_, &fd) == MDB_SUCCESS && ::fstat(fd, &opened) == 0) {
    file_device_ = opened.st_dev;
    file_inode_ = opened.st_ino;
  }
  refresh_map_range();
  int dead = 0;
  mdb_reader_check(env_, &dead);  // clear slots of readers that died
  if (!read_only_) {
    writer_lock_fd_ = ::open((path + "-lock").c_str(), O_RDWR | O_CLOEXEC);
    if (writer_lock_fd_ < 0) {
      return Status(StatusCode::CantOpen, fmt::format("cannot open the lock file of graph '{}': {}",
                                                      path, strerror(errno)));
    }
  }
  DATALOG_RETURN_IF_ERROR(init_tables());
  parks_reads_ = watch_.start_duty([this] { sweep_parked_reads(); });
  return Status::OK();
}

Status GraphEnv::remove_if_unsynced(const std::string& path, const OpenOptions& options) {
  const bool writable = ::access(path.c_str(), F_OK) != 0 || ::access(path.c_str(), W_OK) == 0;
  if (delete_on_close_ || !nosync_ || !writable) return Status::OK();
  marker_ = std::make_unique<SyncMarker>(path);
  bool removed = false;
  DATALOG_RETURN_IF_ERROR(marker_->remove_if_unsafe(path, &removed));
  if (removed && !options.create) {
    return Status(StatusCode::CantOpen,
                  fmt::format("graph file '{}' was written without a sync before the system "
                              "restarted and has been removed (it is rebuilt from the log)", path));
  }
  return Status::OK();
}

Status GraphEnv::check_existing_file(const std::string& path, const OpenOptions& options, off_t* size) {
  FileId id;
  if (!file_id(path, &id, size)) return Status::OK();
  struct stat st {};
  ::stat(path.c_str(), &st);
  if (S_ISDIR(st.st_mode)) {
    return Status(StatusCode::CantOpen, fmt::format("graph path '{}' is a directory", path));
  }
  read_only_ = ::access(path.c_str(), W_OK) != 0;
  if (*size == 0 && !options.create) {
    return Status(StatusCode::NotAGraph, fmt::format("file '{}' is empty, not a graph", path));
  }
  if (*size > 0 && !looks_like_lmdb(path)) {
    return Status(StatusCode::NotAGraph, fmt::format("file '{}' is not a graph", path));
  }
  return Status::OK();
}

Status GraphEnv::open_lmdb(const std::string& path, const OpenOptions& options, off_t size) {
  const std::string lock_path = path + "-lock";
  const bool lock_existed = ::access(lock_path.c_str(), F_OK) == 0;
  int rc = mdb_env_create(&env_);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "mdb_env_create");
  mdb_env_set_userctx(env_, this);           // page_fault_guard.h finds the GraphEnv
  mdb_env_set_assert(env_, on_lmdb_assert);  // and turns LMDB's assertions into faults
  mdb_env_set_maxdbs(env_, kMaxTables);
  mdb_env_set_maxreaders(env_, kMaxReaders);
  std::size_t map = options.initial_map_bytes ? options.initial_map_bytes : kDefaultMapBytes;
  if (static_cast<std::size_t>(size) * 2 > map) map = static_cast<std::size_t>(size) * 2;
  mdb_env_set_mapsize(env_, map);
  unsigned flags = MDB_NOSUBDIR | MDB_NOTLS | MDB_NORDAHEAD;
  if (read_only_) flags |= MDB_RDONLY;
  if (nosync_ && !read_only_) flags |= MDB_NOSYNC;
  rc = mdb_env_open(env_, path.c_str(), flags, 0644);
  if (rc == MDB_SUCCESS) return Status::OK();
  mdb_env_close(env_);
  env_ = nullptr;
  if (!lock_existed) ::unlink(lock_path.c_str());
  if (rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH) {
    return Status(StatusCode::NotAGraph, fmt::format("file '{}' is not a graph", path));
  }
  if (rc == EACCES || rc == EROFS) {
    return Status(StatusCode::ReadOnly,
                  fmt::format("cannot open graph '{}': {} (the graph and its -lock file need "
                              "write access for locking)",
                              path, mdb_strerror(rc)));
  }
  return Status(StatusCode::CantOpen, fmt::format("cannot open graph '{}': {}", path, mdb_strerror(rc)));
}

Status GraphEnv::usage(Usage* out) {
  enter_txn();
  reset_parked_reads(UINT64_MAX);
  leave_txn();
  MDB_envinfo info{};
  DATALOG_RETURN_IF_ERROR(status_from_mdb(mdb_env_info(env_, &info), "graph usage"));
  struct stat file {};
  if (::stat(path_.c_str(), &file) == 0) out->file_bytes = static_cast<std::uint64_t>(file.st_size);
  out->map_bytes = info.me_mapsize;
  out->used_bytes = used_bytes();
  out->last_txnid = info.me_last_txnid;
  out->readers = 0;
  out->oldest_txnid = 0;
  // mdb_reader_list prints a header, then "pid thread txnid" per slot ("-" when the slot's
  // snapshot is reset): the only public view of the reader table.
  auto each = [](const char* line, void* ctx) -> int {
    auto* u = static_cast<Usage*>(ctx);
    long pid = 0;
    unsigned long long thread = 0, txnid = 0;
    if (std::sscanf(line, " %ld %llx %llu", &pid, &thread, &txnid) == 3 && txnid > 0) {
      ++u->readers;
      if (u->oldest_txnid == 0 || txnid < u->oldest_txnid) {
        u->oldest_txnid = txnid;
        u->oldest_pid = pid;
      }
    }
    return 0;
  };
  mdb_reader_list(env_, each, out);
  return Status::OK();
}

bool GraphEnv::free_disk_bytes(std::uint64_t* out) const {
  struct statvfs fs {};
  if (::statvfs(path_.c_str(), &fs) != 0) return false;
  *out = static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
  free_disk_bytes_.store(*out, std::memory_order_relaxed);
  free_disk_read_at_ns_.store(std::chrono::steady_clock::now().time_since_epoch().count(),
                              std::memory_order_relaxed);
  return true;
}

bool GraphEnv::recent_free_disk_bytes(std::uint64_t* out, std::chrono::milliseconds max_age) const {
  const std::int64_t read_at = free_disk_read_at_ns_.load(std::memory_order_relaxed);
  const std::int64_t now = std::chrono::steady_clock::now().time_since_epoch().count();
  if (read_at != 0 && now - read_at < std::chrono::nanoseconds(max_age).count()) {
    *out = free_disk_bytes_.load(std::memory_order_relaxed);
    return true;
  }
  return free_disk_bytes(out);
}

std::uint64_t GraphEnv::used_bytes() const {
  MDB_envinfo info{};
  MDB_stat stat{};
  mdb_env_info(env_, &info);
  mdb_env_stat(env_, &stat);
  return (static_cast<std::uint64_t>(info.me_last_pgno) + 1) * stat.ms_psize;
}

Status GraphEnv::check_not_truncated() const {
  // The newest meta page says which pages are in use. A file shorter than that (a partial copy,
  // a full disk, a truncate) would be read past its end through the map, and that kills the
  // process with SIGBUS: refuse it before any page is read.
  struct stat file {};
  if (::stat(path_.c_str(), &file) != 0) {
    return Status(StatusCode::CantOpen, fmt::format("cannot stat graph '{}': {}", path_, strerror(errno)));
  }
  const std::uint64_t needed = used_bytes();
  if (static_cast<std::uint64_t>(file.st_size) < needed) {
    return Status(StatusCode::Corrupt,
                  fmt::format("graph '{}' is truncated: the file has {} bytes, its pages need {}",
                              path_, file.st_size, needed));
  }
  return Status::OK();
}

GraphEnv::~GraphEnv() {
  if (owner_pid_ != ::getpid()) return;  // inherited across fork(): never touch the parent's env
  watch_.stop_duty();  // no sweep of parked reads from here on
  abort_idle_reads();
  // The last user in this process: sync what was committed unsynced, and say so (under the
  // writer gate, so no other process commits unsynced in between; if one holds it, it will).
  if (env_ && marker_ && !read_only_ && !damaged() &&
      acquire_writer(std::chrono::milliseconds(0)).ok()) {
    // Every unsynced commit marks the marker dirty first, under the gate held here: a clean
    // marker means nothing waits for a sync (a reader's close costs no fdatasync).
    if (!marker_->says_clean() && mdb_env_sync(env_, 1) == MDB_SUCCESS) marker_->mark_clean();
    release_writer();
  }
  if (env_) mdb_env_close(env_);
  if (writer_lock_fd_ >= 0) ::close(writer_lock_fd_);
  if (delete_on_close_) {
    ::unlink(path_.c_str());
    ::unlink((path_ + "-lock").c_str());
  }
}

namespace {

struct TableSpec {
  const char* name;
  MDB_dbi Tables::*member;
};

constexpr TableSpec kTableSpecs[] = {
    {"eavt", &Tables::eavt},     {"aevt", &Tables::aevt},
    {"avet", &Tables::avet},     {"vaet", &Tables::vaet},
    {"ident_names", &Tables::ident_names}, {"ident_ids", &Tables::ident_ids},
    {"txlog", &Tables::txlog},   {"stats", &Tables::stats},
    {"giants", &Tables::giants}, {"meta", &Tables::meta},
    {"rules", &Tables::rules},
};

}  // namespace

Status GraphEnv::init_tables() {
  // First look without writing: an existing graph needs no write transaction to open.
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(env_, nullptr, MDB_RDONLY, &txn);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("open graph '{}'", path_));
  MDB_dbi main_dbi = 0;
  MDB_stat main_stat{};
  mdb::dbi_open(txn, nullptr, 0, &main_dbi);
  mdb::stat(txn, main_dbi, &main_stat);
  const bool fresh = main_stat.ms_entries == 0;
  if (!fresh) {
    for (const auto& spec : kTableSpecs) {
      rc = mdb::dbi_open(txn, spec.name, 0, &(tables_.*spec.member));
      if (rc != MDB_SUCCESS) {
        mdb_txn_abort(txn);
        return Status(StatusCode::NotAGraph,
                      fmt::format("file '{}' is not a graph (an LMDB file without the '{}' table)",
                                  path_, spec.name));
      }
    }
    std::uint32_t version = 0;
    Status st = read_format_version(txn, tables_.meta, &version);
    if (!st.ok()) {
      mdb_txn_abort(txn);
      return Status(StatusCode::NotAGraph, fmt::format("file '{}' is not a graph: {}", path_,
                                                       st.message()));
    }
    if (version > kFormatVersion) {
      mdb_txn_abort(txn);
      return Status(StatusCode::TooNew,
                    fmt::format("graph '{}' has format version {}; this build of sqlite-datalog "
                                "reads versions up to {}",
                                path_, version, kFormatVersion));
    }
    format_version_ = version;
    rc = mdb::txn_commit(txn);  // keeps the table handles for the whole environment
    return status_from_mdb(rc, "open graph tables");
  }
  mdb_txn_abort(txn);
  if (!create_) {
    return Status(StatusCode::NotAGraph, fmt::format("file '{}' holds no graph tables", path_));
  }
  if (read_only_) {
    return Status(StatusCode::NotAGraph, fmt::format("file '{}' is empty and read-only", path_));
  }
  // A new file: create the tables under the writer lock.
  DATALOG_RETURN_IF_ERROR(acquire_writer(kInitTimeout));
  rc = mdb_txn_begin(env_, nullptr, 0, &txn);
  if (rc != MDB_SUCCESS) {
    release_writer();
    return status_from_mdb(rc, "create graph");
  }
  Status st;
  for (const auto& spec : kTableSpecs) {
    rc = mdb::dbi_open(txn, spec.name, MDB_CREATE, &(tables_.*spec.member));
    if (rc != MDB_SUCCESS) {
      st = status_from_mdb(rc, fmt::format("create table '{}'", spec.name));
      break;
    }
  }
  if (st.ok()) st = initialize_meta(txn, tables_.meta);
  if (st.ok()) st = before_commit();
  if (st.ok()) {
    rc = mdb::txn_commit(txn);
    st = status_from_mdb(rc, fmt::format("create graph '{}'", path_));
  } else {
    mdb_txn_abort(txn);
  }
  release_writer();
  return st;
}

}  // namespace datalog::store
