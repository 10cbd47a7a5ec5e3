#include "extension/graph_session.h"

namespace datalog::ext {

using store::Status;
using store::StatusCode;

GraphSession::~GraphSession() { rollback(); }

Status GraphSession::begin_write(std::chrono::milliseconds busy_timeout) {
  if (writer_) return writer_->failure();
  schema_.reset();  // another connection may have changed it since
  return store::WriteTxn::begin(env_, busy_timeout, &writer_);
}

Status GraphSession::commit() {
  if (!writer_) return Status::OK();
  Status st = writer_->commit();
  if (st.ok()) {
    writer_.reset();
    schema_.reset();
    snapshot_.reset();  // readers that start now must see this commit
    stats_stale_ = true;
  }
  return st;
}

void GraphSession::rollback() {
  writer_.reset();
  schema_.reset();
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

Status GraphSession::share_snapshot(std::shared_ptr<Snapshot>* out) {
  if (auto current = snapshot_.lock()) {
    *out = std::move(current);
    return Status::OK();
  }
  MDB_txn* txn = nullptr;
  DATALOG_RETURN_IF_ERROR(env_->begin_read(&txn));
  auto fresh = std::make_shared<Snapshot>(env_, txn);
  snapshot_ = fresh;
  *out = std::move(fresh);
  return Status::OK();
}

const store::GraphStats& GraphSession::stats() {
  if (!stats_stale_) return stats_;
  MDB_txn* txn = nullptr;
  if (writer_ && writer_->open()) {
    txn = writer_->txn();
    store::read_graph_stats(txn, env_->tables(), &stats_);
    return stats_;  // still changing: read again next time
  }
  if (env_->begin_read(&txn).ok()) {
    if (store::read_graph_stats(txn, env_->tables(), &stats_).ok()) stats_stale_ = false;
    env_->end_read(txn);
  }
  return stats_;
}

}  // namespace datalog::ext
