#include "lmdb_store/mdb_status.h"

#include "lmdb_store/page_fault_guard.h"

#include <cerrno>

#include <fmt/format.h>
#include <lmdb.h>

namespace datalog::store {

Status status_from_mdb(int rc, std::string_view what) {
  if (rc == MDB_SUCCESS) return Status::OK();
  if (rc == kPageFault) {
    return Status(StatusCode::Corrupt,
                  fmt::format("the index is damaged ({}: reading one of its pages faulted); it is "
                              "rebuilt from the log by the next statement",
                              what));
  }
  const std::string detail = fmt::format("{}: {}", what, mdb_strerror(rc));
  if (fault_detail::damage_code(rc)) {  // the guarded call marked the index damaged (page_fault_guard.h)
    return Status(StatusCode::Corrupt,
                  fmt::format("the index is damaged ({}); it is rebuilt from the log by the next "
                              "statement",
                              detail));
  }
  switch (rc) {
    case MDB_MAP_FULL:
      return Status(StatusCode::MapFull, detail);
    case ENOSPC:
    case EFBIG:
    case EDQUOT:
      return Status(StatusCode::Full, detail);
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
      return Status(StatusCode::NotAGraph, detail);
    case MDB_BAD_TXN:
      return Status(StatusCode::Corrupt, detail);
    case EACCES:
    case EROFS:
      return Status(StatusCode::ReadOnly, detail);
    case ENOENT:
    case ENOTDIR:
      return Status(StatusCode::CantOpen, detail);
    case EIO:
      return Status(StatusCode::IoError, detail);
    case MDB_READERS_FULL:
    case EAGAIN:
    case EBUSY:
      return Status(StatusCode::Busy, detail);
    default:
      return Status(StatusCode::Internal, detail);
  }
}

}  // namespace datalog::store
