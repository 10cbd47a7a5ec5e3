// lmdb_store/sync_marker.h: whether an index that LMDB committed without syncing may have been
// damaged by an operating-system crash or a power loss.
//
// Storage v2 commits the index with MDB_NOSYNC: SQLite's commit of the log is the durable one,
// and the index can always be rebuilt from it. LMDB's documentation of MDB_NOSYNC: a crash of the
// system may lose the last transactions or corrupt the file; a crash of the process loses
// nothing (its written pages are in the system's cache). A lost transaction is only an index
// behind the log (caught up); a corrupt file must never be read. So an index written without a
// sync during an earlier boot of the machine is not trusted: it is removed at open, and the next
// use rebuilds it from the log.
//
// The marker is the file `<index>-sync`: "dirty <boot id>" while unsynced commits may exist,
// "clean" after a sync. The boot id is Linux's /proc/sys/kernel/random/boot_id; where there is
// none the index syncs every commit instead (synced() false).
// - before an unsynced commit (the caller holds the writer gate): mark_dirty() writes
//   "dirty <this boot>" and syncs it, unless it already says so (one small read per commit);
// - when the last user in a process closes the index (writer gate held): unless it says "clean"
//   already, sync, then mark_clean();
// - at open, under an exclusive flock of the marker: remove_if_unsafe() removes the index and its
//   lock file when the marker says "dirty" with another boot id, then marks it clean.
#pragma once

#include <string>

#include "lmdb_store/mdb_status.h"

namespace datalog::store {

class SyncMarker {
 public:
  // This boot's id; empty when the system has none (then the index syncs every commit).
  static const std::string& boot_id();

  explicit SyncMarker(std::string index_path) : path_(std::move(index_path) + "-sync") {}
  ~SyncMarker();
  SyncMarker(const SyncMarker&) = delete;
  SyncMarker& operator=(const SyncMarker&) = delete;

  // At open, before LMDB opens the index. *removed: the index was removed (it will be rebuilt).
  Status remove_if_unsafe(const std::string& index_path, bool* removed);
  Status mark_dirty();
  Status mark_clean();
  // Whether no unsynced commit can be waiting: the marker says "clean", or was never written.
  bool says_clean();

 private:
  Status open_file();
  std::string read_all();
  Status write_all(const std::string& text);

  std::string path_;
  int fd_ = -1;
};

}  // namespace datalog::store
