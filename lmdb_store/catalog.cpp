#include "lmdb_store/catalog.h"
#include "lmdb_store/page_fault_guard.h"

#include <fmt/format.h>

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/stored_value.h"
#include "lmdb_store/tx_log_format.h"
#include "lmdb_store/mdb_values.h"
#include "engine/uuid_text.h"

namespace datalog::store {

namespace {

// An ident's id, as the key of ident_ids and the data of ident_names: an ordered integer (an
// ident id takes 2 to 4 bytes).
std::string id_key(EntityId id) {
  std::string k;
  put_ordered_int(k, id);
  return k;
}

bool read_id(std::string_view bytes, EntityId* id) {
  return !bytes.empty() && get_ordered_int(bytes, id) == bytes.size();
}

// A keyword whose name is a uuid (":22222222-3333-...") names that uuid's entity (§3).
Value canonical_ident(const Value& name) {
  if (name.is(ValueKind::Keyword) && name.as_keyword().size() == 37) {
    if (auto u = parse_uuid(std::string_view(name.as_keyword()).substr(1))) return Value::uuid(*u);
  }
  return name;
}

}  // namespace

Status lookup_ident(MDB_txn* txn, const Tables& t, const Value& given, std::optional<EntityId>* id) {
  const Value name = canonical_ident(given);
  std::string key;
  encode_value(key, name);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.ident_names, &k, &v);
  if (rc == MDB_NOTFOUND) {
    id->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident");
  EntityId found = 0;
  if (!read_id(as_view(v), &found)) return index_damage(txn, "an ident entry is malformed");
  *id = found;
  return Status::OK();
}

Status ident_name(MDB_txn* txn, const Tables& t, EntityId id, std::optional<Value>* name) {
  const std::string key = id_key(id);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.ident_ids, &k, &v);
  if (rc == MDB_NOTFOUND) {
    name->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident name");
  *name = decode_stored_value(as_view(v));
  if (!name->has_value()) return index_damage(txn, "an ident name is malformed");
  return Status::OK();
}

Status create_ident(MDB_txn* txn, const Tables& t, const Value& given, EntityId new_id, EntityId* id,
                    bool* created) {
  *created = false;
  const Value name = canonical_ident(given);
  std::string name_key;
  encode_value(name_key, name);
  const std::string idk = id_key(new_id);
  const std::string stored = encode_stored_value(name);
  MDB_val k = as_val(name_key), v = as_val(idk);
  // The insert is the lookup: when the name exists, LMDB hands back its id in v.
  int rc = mdb::put(txn, t.ident_names, &k, &v, MDB_NOOVERWRITE);
  if (rc == MDB_KEYEXIST) {
    if (!read_id(as_view(v), id)) return index_damage(txn, "an ident entry is malformed");
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write ident");
  k = as_val(idk);
  v = as_val(stored);
  // Ids are handed out in order, so a new one mostly sorts last: appended, its page fills up
  // instead of splitting in half. LMDB refuses the append otherwise, and the put searches.
  rc = mdb::put(txn, t.ident_ids, &k, &v, MDB_APPEND);
  if (rc == MDB_KEYEXIST) {
    k = as_val(idk);
    v = as_val(stored);
    rc = mdb::put(txn, t.ident_ids, &k, &v, 0);
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write ident name");
  *id = new_id;
  *created = true;
  return Status::OK();
}

Status store_giant(MDB_txn* txn, const Tables& t, const Value& value) {
  const GiantHash hash = giant_hash(value);
  const std::string key(reinterpret_cast<const char*>(hash.data()), hash.size());
  const std::string stored = encode_stored_value(value);
  MDB_val k = as_val(key), v = as_val(stored);
  int rc = mdb::put(txn, t.giants, &k, &v, MDB_NOOVERWRITE);
  if (rc == MDB_KEYEXIST) {
    if (as_view(v) == stored) return Status::OK();
    return Status(StatusCode::InvalidArgument,
                  "cannot store this long value: its hash collides with another stored value");
  }
  return status_from_mdb(rc, "write long value");
}

Status load_giant(MDB_txn* txn, const Tables& t, const GiantHash& hash, Value* value,
                  std::size_t hash_bytes) {
  const std::string key(reinterpret_cast<const char*>(hash.data()), std::min(hash_bytes, hash.size()));
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.giants, &k, &v);
  if (rc != MDB_SUCCESS) {
    return index_damage(txn, fmt::format("long value {} is missing", hash_hex(hash, hash_bytes)));
  }
  auto decoded = decode_stored_value(as_view(v));
  if (!decoded) return index_damage(txn, "a long value is malformed");
  *value = std::move(*decoded);
  return Status::OK();
}

Status read_attribute_stats(MDB_txn* txn, const Tables& t, EntityId a, AttributeStats* out) {
  const std::string key = id_key(a);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.stats, &k, &v);
  *out = AttributeStats{};
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read statistics");
  if (v.mv_size != 24) return index_damage(txn, "a statistics entry has the wrong size");
  const std::string_view d = as_view(v);
  out->records = get_u64(d);
  out->entities = get_u64(d.substr(8));
  out->values = get_u64(d.substr(16));
  return Status::OK();
}

Status write_attribute_stats(MDB_txn* txn, const Tables& t, EntityId a, const AttributeStats& s) {
  const std::string key = id_key(a);
  std::string data;
  put_u64(data, s.records);
  put_u64(data, s.entities);
  put_u64(data, s.values);
  MDB_val k = as_val(key), v = as_val(data);
  return status_from_mdb(mdb::put(txn, t.stats, &k, &v, 0), "write statistics");
}

Status read_graph_stats(MDB_txn* txn, const Tables& t, GraphStats* out) {
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kRecords, &out->records));
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kEntities, &out->entities));
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kLastTx, &out->last_tx));
  MDB_stat st{};
  const int rc = mdb::stat(txn, t.stats, &st);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read statistics");
  out->attributes = st.ms_entries;
  return Status::OK();
}

Status read_tx_info(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::optional<TxInfo>* out) {
  const std::string key = tx_header_key(tx);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.txlog, &k, &v);
  if (rc == MDB_NOTFOUND) {
    out->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read transaction log");
  if (v.mv_size != 16) return index_damage(txn, "a transaction header is malformed");
  const std::string_view d = as_view(v);
  *out = TxInfo{tx, get_i64(d), get_u64(d.substr(8))};
  return Status::OK();
}

bool IndexTxTimes::time_of(std::uint64_t tx, std::int64_t* ms) {
  Slot& slot = slots_[tx % slots_.size()];
  if (slot.tx == tx && tx != 0) {
    *ms = slot.ms;
    return true;
  }
  std::optional<TxInfo> info;
  if (!read_tx_info(txn_, *t_, tx, &info).ok() || !info) return false;
  slot = Slot{tx, info->time_ms};
  *ms = info->time_ms;
  return true;
}

Status tx_as_of_time(MDB_txn* txn, const Tables& t, std::int64_t time_ms, std::uint64_t* tx) {
  std::uint64_t last = 0;
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kLastTx, &last));
  // Transaction times never decrease (WriteTxn enforces it), so binary search by counter.
  std::uint64_t lo = 0, hi = last;  // answer in [lo, hi]
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo + 1) / 2;
    std::optional<TxInfo> info;
    DATALOG_RETURN_IF_ERROR(read_tx_info(txn, t, mid, &info));
    if (info && info->time_ms <= time_ms) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  *tx = lo;
  return Status::OK();
}

Status read_tx_datoms(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::vector<Datom>* out) {
  out->clear();
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn, t.eavt, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read eavt");
  MDB_val k, v;
  rc = mdb::cursor_get(cursor, &k, &v, MDB_FIRST);
  Status st;
  IndexTxTimes times(txn, t);
  while (rc == MDB_SUCCESS && st.ok()) {
    Datom d;
    GiantRef giant;
    if (!decode_datom(IndexId::Eavt, as_view(k), as_view(v), &d, &giant, &times)) {
      st = index_damage(txn, "an eavt record is malformed");
    } else if (d.tx == tx) {
      if (giant.giant) st = load_giant(txn, t, giant.hash, &d.v);
      out->push_back(std::move(d));
    }
    if (st.ok()) rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (st.ok() && rc != MDB_SUCCESS && rc != MDB_NOTFOUND) st = status_from_mdb(rc, "read eavt");
  return st;
}

// Rules: key = sequence number (u64 BE); data = 0x02, the log row that added the rule (u64 BE),
// the log row that removed it (u64 BE, 0 while it stands), then name, NUL, source text. A
// removed rule stays (a reader of an older snapshot of the log still sees it). The first storage
// format wrote name, NUL, source: read as added at 0 and never removed.
namespace {

constexpr char kRuleV2 = '\x02';

struct RuleRecord {
  StoredRule rule;
  std::uint64_t added = 0, removed = 0;
};

bool decode_rule(std::string_view data, RuleRecord* out) {
  if (data.size() >= 17 && data[0] == kRuleV2) {
    out->added = get_u64(data.substr(1));
    out->removed = get_u64(data.substr(9));
    data.remove_prefix(17);
  } else {
    out->added = out->removed = 0;
  }
  const auto nul = data.find('\0');
  if (nul == std::string_view::npos) return false;
  out->rule = StoredRule{std::string(data.substr(0, nul)), std::string(data.substr(nul + 1))};
  return true;
}

std::string encode_rule(const RuleRecord& r) {
  std::string data(1, kRuleV2);
  put_u64(data, r.added);
  put_u64(data, r.removed);
  data += r.rule.name;
  data += '\0';
  data += r.rule.source;
  return data;
}

bool visible(const RuleRecord& r, std::uint64_t through) {
  return r.added <= through && (r.removed == 0 || r.removed > through);
}

}  // namespace

Status read_rules(MDB_txn* txn, const Tables& t, std::vector<StoredRule>* out, std::uint64_t through) {
  out->clear();
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn, t.rules, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read rules");
  MDB_val k, v;
  RuleRecord r;
  rc = mdb::cursor_get(cursor, &k, &v, MDB_FIRST);
  while (rc == MDB_SUCCESS) {
    if (decode_rule(as_view(v), &r) && visible(r, through)) out->push_back(std::move(r.rule));
    rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (rc != MDB_NOTFOUND) return status_from_mdb(rc, "read rules");
  return Status::OK();
}

Status write_rule(MDB_txn* txn, const Tables& t, const StoredRule& rule, std::uint64_t log_seq) {
  std::uint64_t seq = 0;
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kNextRule, &seq));
  std::string key;
  put_u64(key, seq);
  const std::string data = encode_rule(RuleRecord{rule, log_seq, 0});
  MDB_val k = as_val(key), v = as_val(data);
  const int rc = mdb::put(txn, t.rules, &k, &v, 0);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write rule");
  return write_counter(txn, t.meta, meta_key::kNextRule, seq + 1);
}

Status delete_rules(MDB_txn* txn, const Tables& t, const std::string& name, std::uint64_t log_seq,
                    int* removed) {
  *removed = 0;
  std::vector<std::pair<std::string, std::string>> doomed;  // key, new data
  MDB_cursor* cursor = nullptr;
  int rc = mdb_cursor_open(txn, t.rules, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "delete rules");
  MDB_val k, v;
  RuleRecord r;
  rc = mdb::cursor_get(cursor, &k, &v, MDB_FIRST);
  while (rc == MDB_SUCCESS) {
    if (decode_rule(as_view(v), &r) && r.removed == 0 && r.rule.name == name) {
      r.removed = std::max<std::uint64_t>(log_seq, 1);
      doomed.emplace_back(std::string(as_view(k)), encode_rule(r));
    }
    rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  if (rc != MDB_NOTFOUND) return status_from_mdb(rc, "delete rules");
  for (const auto& [key, data] : doomed) {
    MDB_val dk = as_val(key), dv = as_val(data);
    rc = mdb::put(txn, t.rules, &dk, &dv, 0);
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, "delete rule");
    ++*removed;
  }
  return Status::OK();
}

Status lookup_ident(MDB_txn* txn, const Tables& t, ReadCache* shared, const Value& name,
                    std::optional<EntityId>* id) {
  if (!shared) return lookup_ident(txn, t, name, id);
  const std::uint64_t state = mdb_txn_id(txn);
  const ReadCache::IdentLookup known = shared->find_ident(state, name);
  *id = known.entity;
  if (known.entity || known.missing) return Status::OK();
  DATALOG_RETURN_IF_ERROR(lookup_ident(txn, t, name, id));
  if (*id) {
    shared->remember_ident(name, **id);
  } else {
    shared->remember_missing(state, name);
  }
  return Status::OK();
}

Status ident_name(MDB_txn* txn, const Tables& t, ReadCache* shared, EntityId id,
                  std::optional<Value>* name) {
  if (!shared) return ident_name(txn, t, id, name);
  if (shared->ident_of(id, name)) return Status::OK();
  DATALOG_RETURN_IF_ERROR(ident_name(txn, t, id, name));
  if (*name) shared->remember_name(id, **name);
  return Status::OK();
}


}  // namespace datalog::store
