#include "lmdb_store/datom_layout.h"

#include "lmdb_store/key_coding.h"
#include "lmdb_store/meta.h"

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

void encode_tx_op(std::string& out, std::uint64_t tx, Op op) {
  put_ordered_uint(out, tx);
  out += static_cast<char>(op);
}

void encode_tx_suffix(std::string& out, std::uint64_t tx, Op op, std::int64_t valid_from,
                      std::int64_t tx_time_ms) {
  const std::size_t start = out.size();
  encode_tx_op(out, tx, op);
  if (tx_time_ms != kUnknownTxTime && valid_from == tx_time_ms) {
    out += kValidFromIsTxTime;
  } else {
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

std::string encode_valid_to(std::int64_t valid_to) {
  std::string s;
  encode_valid_to(s, valid_to);
  return s;
}

void encode_valid_to(std::string& out, std::int64_t valid_to) {
  if (valid_to != kForever) put_i64(out, valid_to);
}

std::size_t fact_length(std::string_view key) {
  if (key.empty()) return 0;
  const std::size_t suffix = static_cast<std::uint8_t>(key.back());
  if (suffix + 1 >= key.size()) return 0;
  return key.size() - 1 - suffix;
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

bool decode_datom(IndexId index, std::string_view key, std::string_view data, Datom* datom,
                  GiantRef* giant, TxTimes* times, bool skip_value, ValueMemo* memo) {
  const std::size_t fact_size = fact_length(key);
  if (fact_size == 0 || (data.size() != 0 && data.size() != 8)) return false;
  const std::string_view fact = key.substr(0, fact_size);
  const std::string_view suffix = key.substr(fact_size, key.size() - 1 - fact_size);
  Datom& d = *datom;
  giant->giant = false;
  std::size_t pos = 0;
  auto take_id = [&](std::int64_t* id) {
    const std::size_t n = get_ordered_int(fact.substr(pos), id);
    pos += n;
    return n != 0;
  };
  // at_end: the value runs to the end of the fact, so its length is known without decoding it.
  auto take_value = [&](bool at_end) {
    const std::string_view in = fact.substr(pos);
    if (skip_value && at_end) {
      if (!d.v.is(ValueKind::Nil)) d.v = Value();  // the datom may be reused
      pos = fact.size();
      return !in.empty();
    }
    DecodedValue dv = decode_value(in);
    if (!dv.ok) return false;
    d.v = std::move(dv.value);
    giant->giant = dv.giant;
    giant->hash = dv.hash;
    pos += dv.length;
    return true;
  };
  switch (index) {
    case IndexId::Eavt:
      if (!take_id(&d.e) || !take_id(&d.a) || !take_value(true)) return false;
      break;
    case IndexId::Aevt:
      if (!take_id(&d.a) || !take_id(&d.e) || !take_value(true)) return false;
      break;
    case IndexId::Avet: {
      if (!take_id(&d.a)) return false;
      const std::size_t value_start = pos;
      // A run of AVET keys shares its value: when the bytes after the attribute start with the
      // last text value's bytes and an entity follows them exactly, that value is reused.
      if (memo && !memo->bytes.empty() && fact.size() > value_start + memo->bytes.size() &&
          fact.substr(value_start, memo->bytes.size()) == memo->bytes) {
        pos = value_start + memo->bytes.size();
        if (take_id(&d.e) && pos == fact.size()) {
          d.v = memo->value;
          break;
        }
        pos = value_start;
      }
      if (!take_value(false)) return false;
      const std::size_t value_end = pos;
      if (!take_id(&d.e)) return false;
      const bool text = d.v.is(ValueKind::String) || d.v.is(ValueKind::Keyword);
      if (memo && text && !giant->giant) {
        memo->bytes.assign(fact.substr(value_start, value_end - value_start));
        memo->value = d.v;
      }
      break;
    }
    case IndexId::Vaet: {
      std::int64_t r = 0;
      if (!take_id(&r) || !take_id(&d.a) || !take_id(&d.e)) return false;
      d.v = Value::ref(r);
      break;
    }
  }
  if (pos != fact.size()) return false;
  std::size_t at = get_ordered_uint(suffix, &d.tx);
  if (at == 0 || at >= suffix.size()) return false;
  const auto op = static_cast<std::uint8_t>(suffix[at]);
  if (op > static_cast<std::uint8_t>(Op::Reassert)) return false;
  d.op = static_cast<Op>(op);
  ++at;
  if (at + 1 == suffix.size() && suffix[at] == kValidFromIsTxTime) {
    if (!times || !times->time_of(d.tx, &d.valid_from)) return false;
  } else {
    const std::size_t vf = get_ordered_int(suffix.substr(at), &d.valid_from);
    if (vf == 0 || at + vf != suffix.size()) return false;
  }
  d.valid_to = data.empty() ? kForever : get_i64(data);
  return true;
}

}  // namespace datalog::store
