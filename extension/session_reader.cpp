#include "extension/session_reader.h"

#include "engine/script_runner.h"

namespace datalog::ext {

Status GraphReading::open(GraphSession& session, std::unique_ptr<GraphReading>* out) {
  auto r = std::make_unique<GraphReading>();
  DATALOG_RETURN_IF_ERROR(r->start(session));
  *out = std::move(r);
  return Status::OK();
}

Status GraphReading::open(GraphSession& session, std::optional<GraphReading>* out) {
  out->emplace();
  const Status st = (*out)->start(session);
  if (!st.ok()) out->reset();
  return st;
}

Status GraphReading::start(GraphSession& session) {
  session_ = &session;
  store::WriteTxn* writer = session.writer();
  if (writer && !writer->failure().ok()) return writer->failure();
  if (writer && writer->open()) {
    access_.emplace(session.env(), *writer);
    access_->use_spare(&session.spare_scan());
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(session.prepare_read(&visible_, &snapshot_));
  if (!snapshot_) DATALOG_RETURN_IF_ERROR(session.share_snapshot(&snapshot_));
  access_.emplace(*snapshot_);
  access_->use_spare(&session.spare_scan());
  access_->set_visible_through(visible_.tx, visible_.seq);
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
