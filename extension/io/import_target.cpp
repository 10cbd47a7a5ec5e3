#include "extension/io/import_target.h"

#include <random>

#include <fmt/format.h>

#include "engine/eval/write_runner.h"

namespace datalog::ext::io {

Status ImportTarget::begin() { return host_.begin_write(&writer_); }

Status ImportTarget::finish(Status st) {
  if (st.ok() && writer_) st = flush();
  const Status ended = writer_ ? host_.end_write(st.ok()) : Status::OK();
  writer_ = nullptr;
  if (!st.ok()) return st;
  DATALOG_RETURN_IF_ERROR(ended);
  return host_.commit(probe_);
}

Status ImportTarget::next_transaction() {
  DATALOG_RETURN_IF_ERROR(flush());
  writer_ = nullptr;
  DATALOG_RETURN_IF_ERROR(host_.end_write(true));
  return host_.begin_write(&writer_);
}

Status ImportTarget::entity_done() {
  return batch_.facts.size() >= kBatchFacts ? flush() : Status::OK();
}

Status ImportTarget::flush() {
  if (batch_.facts.empty()) return Status::OK();
  const Status st = transact(batch_);
  batch_.facts.clear();
  return st;
}

Status ImportTarget::transact(const ast::Transact& t) {
  std::size_t datoms = 0;
  const Status st = eval::run_transact(*writer_, t, &datoms);
  if (!st.ok()) {
    // The transact path says "at line L, column C" of the file (each fact's position).
    return Status(st.code(), fmt::format("datalog_import: {}: {}", file_.display_name(), st.message()));
  }
  written_ += datoms;
  DATALOG_RETURN_IF_ERROR(host_.checkpoint(&writer_));
  return check_in();
}

Status ImportTarget::check_in() {
  progress_.set_done(file_.bytes_read(), written_);
  if (probe_.interrupted()) return Status(StatusCode::Interrupted, "interrupted");
  return Status::OK();
}

Status ImportTarget::blank_node(std::string_view label, EntityId* out) {
  const std::string key(label);
  if (auto it = blank_nodes_.find(key); it != blank_nodes_.end()) {
    *out = it->second;
    return Status::OK();
  }
  DATALOG_RETURN_IF_ERROR(fresh_blank_node(out));
  blank_nodes_.emplace(key, *out);
  return Status::OK();
}

Status ImportTarget::fresh_blank_node(EntityId* out) {
  static thread_local std::mt19937_64 generator{std::random_device{}()};
  Uuid u;
  for (std::size_t k = 0; k < u.bytes.size(); k += 8) {
    const std::uint64_t bits = generator();
    for (std::size_t b = 0; b < 8; ++b) u.bytes[k + b] = static_cast<std::uint8_t>(bits >> (8 * b));
  }
  u.bytes[6] = static_cast<std::uint8_t>((u.bytes[6] & 0x0F) | 0x40);  // a version 4 uuid
  u.bytes[8] = static_cast<std::uint8_t>((u.bytes[8] & 0x3F) | 0x80);
  return writer_->resolve_ident(Value::uuid(u), out);
}

}  // namespace datalog::ext::io
