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

// A value of the compact records: its kind's tag, then integers, instants and refs as ordered
// integers, texts as an ordered length and their bytes, the rest in their fixed form.
void put_compact_value(std::string& out, const Value& v) {
  switch (v.kind()) {
    case ValueKind::Integer:
    case ValueKind::Instant:
    case ValueKind::Ref:
      out += static_cast<char>(v.kind());
      put_ordered_int(out, v.is(ValueKind::Integer)   ? v.as_integer()
                           : v.is(ValueKind::Instant) ? v.as_instant()
                                                      : v.as_ref());
      return;
    case ValueKind::String:
    case ValueKind::Keyword:
    case ValueKind::Bytes: {
      const std::string& text = v.is(ValueKind::String)    ? v.as_string()
                                : v.is(ValueKind::Keyword) ? v.as_keyword()
                                                           : v.as_bytes();
      out += static_cast<char>(v.kind());
      put_ordered_uint(out, text.size());
      out += text;
      return;
    }
    default:
      out += encode_stored_value(v);  // float, boolean, uuid, nil: fixed width
      return;
  }
}

// Flags of a compact assertion: which valid-time bounds differ from their defaults (valid from
// the transaction's time, valid to forever) and so follow.
constexpr std::uint8_t kValidFromGiven = 1;
constexpr std::uint8_t kValidToGiven = 2;

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
  bool ordered(std::int64_t* out) {
    const std::size_t n = get_ordered_int(body_.substr(at_), out);
    at_ += n;
    return n != 0;
  }
  bool flags(std::uint8_t* out) {
    if (done()) return false;
    *out = static_cast<std::uint8_t>(body_[at_++]);
    return *out <= (kValidFromGiven | kValidToGiven);
  }
  bool compact_value(Value* out) {
    if (done()) return false;
    const auto kind = static_cast<ValueKind>(body_[at_]);
    switch (kind) {
      case ValueKind::Integer:
      case ValueKind::Instant:
      case ValueKind::Ref: {
        ++at_;
        std::int64_t x = 0;
        if (!ordered(&x)) return false;
        *out = kind == ValueKind::Integer   ? Value::integer(x)
               : kind == ValueKind::Instant ? Value::instant(x)
                                            : Value::ref(x);
        return true;
      }
      case ValueKind::String:
      case ValueKind::Keyword:
      case ValueKind::Bytes: {
        ++at_;
        std::uint64_t n = 0;
        const std::size_t length = get_ordered_uint(body_.substr(at_), &n);
        if (length == 0) return false;
        at_ += length;
        if (body_.size() - at_ < n) return false;
        std::string text(body_.substr(at_, n));
        at_ += n;
        *out = kind == ValueKind::String    ? Value::string(std::move(text))
               : kind == ValueKind::Keyword ? Value::keyword(std::move(text))
                                            : Value::bytes(std::move(text));
        return true;
      }
      default: {
        // Fixed width: the stored value's own decoder says how many bytes it takes.
        const DecodedValue d = decode_fixed_value(body_.substr(at_));
        if (!d.ok || d.giant) return false;
        at_ += d.length;
        *out = d.value;
        return true;
      }
    }
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
  body += 'I';
  put_ordered_int(body, id);
  put_compact_value(body, name);
}

void log_assert(std::string& body, EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                std::int64_t valid_to, std::int64_t tx_time_ms) {
  body += 'A';
  put_ordered_int(body, e);
  put_ordered_int(body, a);
  const std::uint8_t flags = (valid_from != tx_time_ms ? kValidFromGiven : 0) |
                             (valid_to != kForever ? kValidToGiven : 0);
  body += static_cast<char>(flags);
  if (flags & kValidFromGiven) put_ordered_int(body, valid_from);
  if (flags & kValidToGiven) put_ordered_int(body, valid_to);
  put_compact_value(body, v);
}

void log_retract(std::string& body, EntityId e, EntityId a, const Value& v) {
  body += 'R';
  put_ordered_int(body, e);
  put_ordered_int(body, a);
  put_compact_value(body, v);
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

Status read_log_body(std::uint64_t seq, std::int64_t tx_time_ms, std::string_view body,
                     LogRecordVisitor& visitor) {
  BodyReader in(seq, body);
  while (!in.done()) {
    const std::size_t record_at = in.at();
    char tag = 0;
    in.tag(&tag);
    std::int64_t e = 0, a = 0, from = 0, to = 0;
    Value v;
    std::string_view name, source;
    std::uint8_t flags = 0;
    switch (tag) {
      case 'I':
        if (!in.ordered(&e) || !in.compact_value(&v)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.ident(e, v));
        break;
      case 'A':
        if (!in.ordered(&e) || !in.ordered(&a) || !in.flags(&flags)) return in.damaged(record_at);
        from = tx_time_ms;
        to = kForever;
        if ((flags & kValidFromGiven) && !in.ordered(&from)) return in.damaged(record_at);
        if ((flags & kValidToGiven) && !in.ordered(&to)) return in.damaged(record_at);
        if (!in.compact_value(&v)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.asserted(e, a, v, from, to));
        break;
      case 'R':
        if (!in.ordered(&e) || !in.ordered(&a) || !in.compact_value(&v)) return in.damaged(record_at);
        DATALOG_RETURN_IF_ERROR(visitor.retracted(e, a, v));
        break;
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
