#include "lmdb_store/sync_marker.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace datalog::store {

namespace {

std::string read_boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

Status io_error(const std::string& what, const std::string& path) {
  return Status(StatusCode::IoError, fmt::format("{} '{}': {}", what, path, std::strerror(errno)));
}

}  // namespace

const std::string& SyncMarker::boot_id() {
  static const std::string id = read_boot_id();
  return id;
}

SyncMarker::~SyncMarker() {
  if (fd_ >= 0) ::close(fd_);
}

Status SyncMarker::open_file() {
  if (fd_ >= 0) return Status::OK();
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) return io_error("cannot open the index's sync marker", path_);
  return Status::OK();
}

std::string SyncMarker::read_all() {
  char buffer[128];
  const ssize_t n = ::pread(fd_, buffer, sizeof buffer, 0);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

Status SyncMarker::write_all(const std::string& text) {
  if (::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()) ||
      ::ftruncate(fd_, static_cast<off_t>(text.size())) != 0 || ::fdatasync(fd_) != 0) {
    return io_error("cannot write the index's sync marker", path_);
  }
  return Status::OK();
}

Status SyncMarker::remove_if_unsafe(const std::string& index_path, bool* removed) {
  *removed = false;
  if (::access(path_.c_str(), F_OK) != 0) return Status::OK();  // never written unsynced
  DATALOG_RETURN_IF_ERROR(open_file());
  if (::flock(fd_, LOCK_EX) != 0) return io_error("cannot lock the index's sync marker", path_);
  Status st;
  const std::string text = read_all();
  if (text.rfind("dirty ", 0) == 0 && text.substr(6) != boot_id()) {
    // Written without a sync before the machine last started: possibly damaged. The index is
    // derived data: remove it, and the log rebuilds it.
    if (::unlink(index_path.c_str()) == 0 || errno == ENOENT) {
      ::unlink((index_path + "-lock").c_str());
      *removed = true;
      st = write_all("clean");
    } else {
      st = io_error("cannot remove the unsynced index", index_path);
    }
  }
  ::flock(fd_, LOCK_UN);
  return st;
}

Status SyncMarker::mark_dirty() {
  DATALOG_RETURN_IF_ERROR(open_file());
  const std::string dirty = "dirty " + boot_id();
  if (read_all() == dirty) return Status::OK();
  return write_all(dirty);
}

Status SyncMarker::mark_clean() {
  DATALOG_RETURN_IF_ERROR(open_file());
  return write_all("clean");
}

bool SyncMarker::says_clean() {
  if (fd_ < 0 && ::access(path_.c_str(), F_OK) != 0) return true;  // mark_dirty() creates it
  return open_file().ok() && read_all() == "clean";
}

}  // namespace datalog::store
