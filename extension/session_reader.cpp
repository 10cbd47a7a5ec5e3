#include "extension/session_reader.h"

#include "engine/script_runner.h"

namespace datalog::ext {

Status GraphReading::open(GraphSession& session, std::unique_ptr<GraphReading>* out) {
  auto r = std::make_unique<GraphReading>();
  r->session_ = &session;
  store::WriteTxn* writer = session.writer();
  if (writer && !writer->failure().ok()) return writer->failure();
  if (writer && writer->open()) {
    r->access_.emplace(session.env(), *writer);
  } else {
    DATALOG_RETURN_IF_ERROR(session.prepare_read(&r->visible_, &r->snapshot_));
    if (!r->snapshot_) DATALOG_RETURN_IF_ERROR(session.share_snapshot(&r->snapshot_));
    r->access_.emplace(*r->snapshot_);
    r->access_->set_visible_through(r->visible_.tx, r->visible_.seq);
  }
  *out = std::move(r);
  return Status::OK();
}

Status GraphReading::rules(GraphSession::Rules* out) {
  const std::uint64_t txn_id = snapshot_ ? snapshot_->id() : 0;
  if (snapshot_ && (*out = session_->cached_rules(txn_id, visible_.seq))) return Status::OK();
  auto loaded = std::make_shared<std::vector<ast::Rule>>();
  DATALOG_RETURN_IF_ERROR(load_rules(*access_, loaded.get()));
  *out = std::move(loaded);
  if (snapshot_) session_->remember_rules(txn_id, visible_.seq, *out);
  return Status::OK();
}

}  // namespace datalog::ext
