#include "lmdb_store/log_records.h"

#include <fmt/format.h>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/stored_value.h"

namespace datalog::store {

namespace {

void put_u32(std::string& out, std::uint32_t x) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((x >> shift) & 0xFF);
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_u32(out, static_cast<std::uint32_t>(bytes.size()));
  out.append(bytes);
}

// Reads a body front to back; every read checks the bytes are there.
class BodyReader {
 public:
  BodyReader(std::uint64_t seq, std::string_view body) : seq_(seq), body_(body) {}
  bool done() const { return at_ >= body_.size(); }
  std::size_t at() const { return at_; }

  bool tag(char* out) {
    if (done()) return false;
    *out = body_[at_++];
    return true;
  }
  bool i64(std::int64_t* out) {
    if (body_.size() - at_ < 8) return false;
    *out = get_i64(body_.substr(at_));
    at_ += 8;
    return true;
  }
  bool bytes(std::string_view* out) {
    if (body_.size() - at_ < 4) return false;
    std::uint32_t n = 0;
    for (int i = 0; i < 4; ++i) n = (n << 8) | static_cast<unsigned char>(body_[at_ + i]);
    at_ += 4;
    if (body_.size() - at_ < n) return false;
    *out = body_.substr(at_, n);
    at_ += n;
    return true;
  }
  bool value(Value* out) {
    std::string_view b;
    if (!bytes(&b)) return false;
    auto v = decode_stored_value(b);
    if (!v) return false;
    *out = std::move(*v);
    return true;
  }
  Status damaged(std::size_t record_at) const {
    return Status(StatusCode::Corrupt,
                  fmt::format("the graph's log is damaged: row {} has a malformed record at byte {}",
                              seq_, record_at));
  }

 private:
  std::uint64_t seq_;
  std::string_view body_;
  std::size_t at_ = 0;
};

}  // namespace

void log_ident(std::string& body, EntityId id, const Value& name) {
  body += 'i';
  put_i64(body, id);
  put_bytes(body, encode_stored_value(name));
}

void log_assert(std::string& body, EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                std::int64_t valid_to) {
  body += 'a';
  put_i64(body, e);
  put_i64(body, a);
  put_i64(body, valid_from);
  put_i64(body, valid_to);
  put_bytes(body, encode_stored_value(v));
}

void log_retract(std::string& body, EntityId e, EntityId a, const Value& v) {
  body += 'r';
  put_i64(body, e);
  put_i64(body, a);
  put_bytes(body, encode_stored_value(v));
}

void log_rule(std::string& body, const StoredRule& rule) {
  body += 'u';
  put_bytes(body, rule.name);
  put_bytes(body, rule.source);
}

void log_rules_removed(std::string& body, const std::string& name) {
  body += 'x';
  put_bytes(body, name);
}

void log_counter_consumed(std::string& body) { body += 'c'; }

Status read_log_body(std::uint64_t seq, std::string_view body, LogRecordVisitor& visitor) {
  BodyReader in(seq, body);
  while (!in.done()) {
    const std::size_t record_at = in.at();
    char tag = 0;
    in.tag(&tag);
    std::int64_t e = 0, a = 0, from = 0, to = 0;
    Value v;
    std::string_view name, source;
    switch (tag) {
      case 'i':
        if (!in.i64(&e) || !in.value(&v)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.ident(e, v));
        break;
      case 'a':
        if (!in.i64(&e) || !in.i64(&a) || !in.i64(&from) || !in.i64(&to) || !in.value(&v)) {
          return in.damaged(record_at);
        }
        DATALOG_RETURN_IF_ERROR(visitor.asserted(e, a, v, from, to));
        break;
      case 'r':
        if (!in.i64(&e) || !in.i64(&a) || !in.value(&v)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.retracted(e, a, v));
        break;
      case 'u':
        if (!in.bytes(&name) || !in.bytes(&source)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.rule(StoredRule{std::string(name), std::string(source)}));
        break;
      case 'x':
        if (!in.bytes(&name)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.rules_removed(std::string(name)));
        break;
      case 'c':
        DATALOG_RETURN_IF_ERROR(visitor.counter_consumed());
        break;
      default:
        return in.damaged(record_at);
    }
  }
  return Status::OK();
}

}  // namespace datalog::store
