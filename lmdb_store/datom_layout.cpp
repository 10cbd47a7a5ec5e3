#include "lmdb_store/datom_layout.h"

#include "lmdb_store/key_coding.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/record_check.h"

namespace datalog::store {

static_assert(kIdentBase == kFirstIdentId, "ident ids are the ones the key coding stores short");

std::string_view index_name(IndexId index) {
  switch (index) {
    case IndexId::Eavt: return "eavt";
    case IndexId::Aevt: return "aevt";
    case IndexId::Avet: return "avet";
    case IndexId::Vaet: return "vaet";
  }
  return "?";
}

void encode_fact_prefix(std::string& out, IndexId index, EntityId e, EntityId a, const Value& v) {
  switch (index) {
    case IndexId::Eavt:
      put_ordered_int(out, e);
      put_ordered_int(out, a);
      encode_value(out, v);
      return;
    case IndexId::Aevt:
      put_ordered_int(out, a);
      put_ordered_int(out, e);
      encode_value(out, v);
      return;
    case IndexId::Avet:
      put_ordered_int(out, a);
      encode_value(out, v);
      put_ordered_int(out, e);
      return;
    case IndexId::Vaet:
      put_ordered_int(out, v.as_ref());
      put_ordered_int(out, a);
      put_ordered_int(out, e);
      return;
  }
}

namespace {

constexpr std::uint8_t kValidFromFollows = 1;  // the op byte's low bit

}  // namespace

void encode_tx_op(std::string& out, std::uint64_t tx, Op op) {
  put_ordered_uint(out, tx);
  out += static_cast<char>(static_cast<std::uint8_t>(op) << 1);
}

bool same_tx_op(std::string_view key, std::string_view prefix) {
  if (prefix.empty() || key.size() <= prefix.size()) return false;
  const std::size_t op_at = prefix.size() - 1;
  return key.substr(0, op_at) == prefix.substr(0, op_at) &&
         (static_cast<std::uint8_t>(key[op_at]) >> 1) == (static_cast<std::uint8_t>(prefix[op_at]) >> 1);
}

void encode_tx_suffix(std::string& out, std::uint64_t tx, Op op, std::int64_t valid_from,
                      std::int64_t tx_time_ms) {
  const std::size_t start = out.size();
  encode_tx_op(out, tx, op);
  if (tx_time_ms == kUnknownTxTime || valid_from != tx_time_ms) {
    out.back() = static_cast<char>(out.back() | kValidFromFollows);
    put_ordered_int(out, valid_from);
  }
  out += static_cast<char>(out.size() - start);
}

void encode_datom_key(std::string& out, IndexId index, const Datom& datom, std::int64_t tx_time_ms) {
  // Room for the longest key (three ids, the largest value, the suffix): one allocation at most.
  out.reserve(out.size() + 2 * kMaxIdBytes + kMaxEncodedValue + kMaxTxSuffix);
  encode_fact_prefix(out, index, datom.e, datom.a, datom.v);
  encode_tx_suffix(out, datom.tx, datom.op, datom.valid_from, tx_time_ms);
}

void datom_key_from_eavt(std::string& out, IndexId index, std::string_view eavt_key) {
  const std::size_t e_size = ordered_int_length(static_cast<std::uint8_t>(eavt_key[0]));
  const std::size_t a_size = ordered_int_length(static_cast<std::uint8_t>(eavt_key[e_size]));
  const std::size_t fact = fact_length(eavt_key);
  const std::string_view e = eavt_key.substr(0, e_size), a = eavt_key.substr(e_size, a_size);
  const std::string_view v = eavt_key.substr(e_size + a_size, fact - e_size - a_size);
  const std::string_view suffix = eavt_key.substr(fact);
  out.reserve(out.size() + eavt_key.size());
  switch (index) {
    case IndexId::Eavt:
      out += eavt_key;
      return;
    case IndexId::Aevt:
      out.append(a).append(e).append(v).append(suffix);
      return;
    case IndexId::Avet:
      out.append(a).append(v).append(e).append(suffix);
      return;
    case IndexId::Vaet:
      out.append(v.substr(1)).append(a).append(e).append(suffix);  // the ref's id, without V's tag
      return;
  }
}

std::string encode_record_data(std::string_view key, std::int64_t valid_to) {
  std::string data;
  encode_valid_to(data, valid_to);
  append_record_check(data, key);
  return data;
}

void encode_valid_to(std::string& out, std::int64_t valid_to) {
  if (valid_to != kForever) put_i64(out, valid_to);
}

std::size_t counted_prefix_length(IndexId index, std::string_view key) {
  const std::size_t first = key.empty() ? 0 : ordered_int_length(static_cast<std::uint8_t>(key[0]));
  if (first == 0) return 0;
  switch (index) {
    case IndexId::Eavt:
      return first;
    case IndexId::Aevt: {
      if (key.size() <= first) return 0;
      const std::size_t second = ordered_int_length(static_cast<std::uint8_t>(key[first]));
      return second == 0 ? 0 : first + second;
    }
    case IndexId::Avet: {
      const std::size_t fact = fact_length(key);
      if (fact <= first) return 0;
      const DecodedValue v = decode_value(key.substr(first, fact - first));
      return v.ok ? first + v.length : 0;
    }
    case IndexId::Vaet:
      return 0;
  }
  return 0;
}

namespace {

// Reads the fields of a key's fact part (e, a, v in the index's order) into a datom, in order.
struct FactFields {
  std::string_view fact;
  Datom& d;
  GiantRef& giant;
  bool skip_value;
  std::size_t pos = 0;

  bool take_id(std::int64_t* id) {
    const std::size_t n = get_ordered_int(fact.substr(pos), id);
    pos += n;
    return n != 0;
  }
  // An integer, instant or ref value straight into the datom (the common values of a scan),
  // without decode_value's result; false leaves every other kind, and damage, to decode_value.
  bool take_integral(std::string_view in) {
    if (in.empty()) return false;
    const auto kind = static_cast<ValueKind>(static_cast<std::uint8_t>(in[0]));
    if (kind != ValueKind::Integer && kind != ValueKind::Instant && kind != ValueKind::Ref) return false;
    std::int64_t x = 0;
    const std::size_t n = get_ordered_int(in.substr(1), &x);
    if (n == 0) return false;
    d.v = integral_value(kind, x);
    giant.giant = false;
    pos += 1 + n;
    return true;
  }
  // at_end: the value runs to the end of the fact, so its length is known without decoding it.
  bool take_value(bool at_end) {
    const std::string_view in = fact.substr(pos);
    if (skip_value && at_end) {
      if (!d.v.is(ValueKind::Nil)) d.v = Value();  // the datom may be reused
      pos = fact.size();
      return !in.empty();
    }
    if (take_integral(in)) return true;
    DecodedValue dv = decode_value(in);
    if (!dv.ok) return false;
    d.v = std::move(dv.value);
    giant.giant = dv.giant;
    giant.hash = dv.hash;
    pos += dv.length;
    return true;
  }
};

// AVET's fact part: a V e.
bool take_avet_fact(FactFields& f, ValueMemo* memo) {
  if (!f.take_id(&f.d.a)) return false;
  const std::size_t value_start = f.pos;
  // A run of AVET keys shares its value: when the bytes after the attribute start with the
  // last text value's bytes and an entity follows them exactly, that value is reused.
  if (memo && !memo->bytes.empty() && f.fact.size() > value_start + memo->bytes.size() &&
      f.fact.substr(value_start, memo->bytes.size()) == memo->bytes) {
    f.pos = value_start + memo->bytes.size();
    if (f.take_id(&f.d.e) && f.pos == f.fact.size()) {
      f.d.v = memo->value;
      return true;
    }
    f.pos = value_start;
  }
  if (!f.take_value(false)) return false;
  const std::size_t value_end = f.pos;
  if (!f.take_id(&f.d.e)) return false;
  const bool text = f.d.v.is(ValueKind::String) || f.d.v.is(ValueKind::Keyword);
  if (memo && text && !f.giant.giant) {
    memo->bytes.assign(f.fact.substr(value_start, value_end - value_start));
    memo->value = f.d.v;
  }
  return true;
}

// The fact part of a key of index, all of it.
bool take_fact(IndexId index, FactFields& f, ValueMemo* memo) {
  Datom& d = f.d;
  switch (index) {
    case IndexId::Eavt:
      if (!f.take_id(&d.e) || !f.take_id(&d.a) || !f.take_value(true)) return false;
      break;
    case IndexId::Aevt:
      if (!f.take_id(&d.a) || !f.take_id(&d.e) || !f.take_value(true)) return false;
      break;
    case IndexId::Avet:
      if (!take_avet_fact(f, memo)) return false;
      break;
    case IndexId::Vaet: {
      std::int64_t r = 0;
      if (!f.take_id(&r) || !f.take_id(&d.a) || !f.take_id(&d.e)) return false;
      d.v = Value::ref(r);
      break;
    }
  }
  return f.pos == f.fact.size();
}

// "tx op [vf]" (the suffix without its length byte) into d.
bool decode_tx_suffix(std::string_view suffix, TxTimes* times, Datom& d) {
  std::size_t at = get_ordered_uint(suffix, &d.tx);
  if (at == 0 || at >= suffix.size()) return false;
  const auto op_byte = static_cast<std::uint8_t>(suffix[at]);
  const std::uint8_t op = op_byte >> 1;
  if (op > static_cast<std::uint8_t>(Op::Reassert)) return false;
  d.op = static_cast<Op>(op);
  ++at;
  if (!(op_byte & kValidFromFollows)) {
    return at == suffix.size() && times && times->time_of(d.tx, &d.valid_from);
  }
  const std::size_t vf = get_ordered_int(suffix.substr(at), &d.valid_from);
  return vf != 0 && at + vf == suffix.size();
}

}  // namespace

bool decode_datom(IndexId index, std::string_view key, std::string_view data, Datom* datom,
                  GiantRef* giant, TxTimes* times, bool skip_value, ValueMemo* memo) {
  const std::size_t fact_size = fact_length(key);
  std::string_view valid_to;
  if (fact_size == 0 || !checked_payload(key, data, &valid_to)) return false;
  if (!valid_to.empty() && valid_to.size() != 8) return false;
  giant->giant = false;
  FactFields fields{key.substr(0, fact_size), *datom, *giant, skip_value};
  if (!take_fact(index, fields, memo)) return false;
  if (!decode_tx_suffix(key.substr(fact_size, key.size() - 1 - fact_size), times, *datom)) return false;
  datom->valid_to = valid_to.empty() ? kForever : get_i64(valid_to);
  return true;
}

}  // namespace datalog::store
