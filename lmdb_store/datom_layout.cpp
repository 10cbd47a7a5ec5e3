#include "lmdb_store/datom_layout.h"

#include "lmdb_store/key_coding.h"

namespace datalog::store {

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
      put_i64(out, e);
      put_i64(out, a);
      encode_value(out, v);
      return;
    case IndexId::Aevt:
      put_i64(out, a);
      put_i64(out, e);
      encode_value(out, v);
      return;
    case IndexId::Avet:
      put_i64(out, a);
      encode_value(out, v);
      put_i64(out, e);
      return;
    case IndexId::Vaet:
      put_i64(out, v.as_ref());
      put_i64(out, a);
      put_i64(out, e);
      return;
  }
}

void encode_tx_suffix(std::string& out, std::uint64_t tx, Op op, std::int64_t valid_from) {
  put_u64(out, tx);
  out += static_cast<char>(op);
  put_i64(out, valid_from);
}

void encode_datom_key(std::string& out, IndexId index, const Datom& datom) {
  // Room for the longest key (two ids, the largest value, the suffix): one allocation at most.
  out.reserve(out.size() + 16 + kMaxEncodedValue + kTxSuffix);
  encode_fact_prefix(out, index, datom.e, datom.a, datom.v);
  encode_tx_suffix(out, datom.tx, datom.op, datom.valid_from);
}

std::string encode_valid_to(std::int64_t valid_to) {
  std::string s;
  encode_valid_to(s, valid_to);
  return s;
}

void encode_valid_to(std::string& out, std::int64_t valid_to) { put_i64(out, valid_to); }

bool decode_datom(IndexId index, std::string_view key, std::string_view data, Datom* datom,
                  GiantRef* giant, bool skip_value, ValueMemo* memo) {
  if (key.size() < kTxSuffix + 16 + 1 || data.size() != 8) return false;
  const std::string_view fact = key.substr(0, key.size() - kTxSuffix);
  const std::string_view suffix = key.substr(key.size() - kTxSuffix);
  Datom& d = *datom;
  giant->giant = false;
  // at_end: the value runs to the end of the fact, so its length is known without decoding it.
  auto take_value = [&](std::string_view in, bool at_end) -> std::size_t {
    if (skip_value && at_end) {
      if (!d.v.is(ValueKind::Nil)) d.v = Value();  // the datom may be reused
      return in.size();
    }
    DecodedValue dv = decode_value(in);
    if (!dv.ok) return 0;
    d.v = std::move(dv.value);
    giant->giant = dv.giant;
    giant->hash = dv.hash;
    return dv.length;
  };
  switch (index) {
    case IndexId::Eavt: {
      d.e = get_i64(fact);
      d.a = get_i64(fact.substr(8));
      const std::size_t n = take_value(fact.substr(16), true);
      if (n == 0 || 16 + n != fact.size()) return false;
      break;
    }
    case IndexId::Aevt: {
      d.a = get_i64(fact);
      d.e = get_i64(fact.substr(8));
      const std::size_t n = take_value(fact.substr(16), true);
      if (n == 0 || 16 + n != fact.size()) return false;
      break;
    }
    case IndexId::Avet: {
      d.a = get_i64(fact);
      if (fact.size() < 8 + 1 + 8) return false;
      const std::string_view value_bytes = fact.substr(8, fact.size() - 16);
      if (memo && !memo->bytes.empty() && value_bytes == memo->bytes) {
        d.v = memo->value;
        d.e = get_i64(fact.substr(fact.size() - 8));
        break;
      }
      const std::size_t n = take_value(fact.substr(8), false);
      if (n == 0 || 8 + n + 8 != fact.size()) return false;
      d.e = get_i64(fact.substr(8 + n));
      const bool text = d.v.is(ValueKind::String) || d.v.is(ValueKind::Keyword);
      if (memo && text && !giant->giant) {
        memo->bytes.assign(value_bytes);
        memo->value = d.v;
      }
      break;
    }
    case IndexId::Vaet: {
      if (fact.size() != 24) return false;
      d.v = Value::ref(get_i64(fact));
      d.a = get_i64(fact.substr(8));
      d.e = get_i64(fact.substr(16));
      break;
    }
  }
  d.tx = get_u64(suffix);
  const auto op = static_cast<std::uint8_t>(suffix[8]);
  if (op > static_cast<std::uint8_t>(Op::Reassert)) return false;
  d.op = static_cast<Op>(op);
  d.valid_from = get_i64(suffix.substr(9));
  d.valid_to = get_i64(data);
  return true;
}

}  // namespace datalog::store
