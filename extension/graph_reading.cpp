#include "extension/graph_reading.h"

namespace datalog::ext {

Status GraphReading::open(GraphSession& session, std::unique_ptr<GraphReading>* out) {
  auto r = std::make_unique<GraphReading>();
  store::WriteTxn* writer = session.writer();
  if (writer && !writer->failure().ok()) return writer->failure();
  if (writer && writer->open()) {
    r->access_.emplace(session.env(), *writer);
  } else {
    DATALOG_RETURN_IF_ERROR(session.share_snapshot(&r->snapshot_));
    r->access_.emplace(session.env(), r->snapshot_->txn());
  }
  *out = std::move(r);
  return Status::OK();
}

InterruptProbe::~InterruptProbe() { sqlite3_finalize(probe_); }

bool InterruptProbe::interrupted() {
  // Prepared on the first poll: most queries end before the engine polls at all.
  if (!probe_ && sqlite3_prepare_v2(db_, "SELECT 1", -1, &probe_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(probe_);
    probe_ = nullptr;
    return false;
  }
  const int rc = sqlite3_step(probe_);
  sqlite3_reset(probe_);
  return rc == SQLITE_INTERRUPT;
}

}  // namespace datalog::ext
