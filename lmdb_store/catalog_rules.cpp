// Rules (catalog.h): stored with the log rows that added and removed them.
#include "lmdb_store/catalog.h"

#include <functional>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"

namespace datalog::store {

// Rules: key = sequence number (u64 BE); data = 0x03, the log row that added the rule (u64 BE),
// the log row that removed it (u64 BE, 0 while it stands), name, NUL, source text, then the
// record's check byte (record_check.h). A removed rule stays (a reader of an older snapshot of the
// log still sees it). Formats 2 to 5 wrote 0x02 and no check byte; the first storage format
// wrote name, NUL, source: read as added at 0 and never removed (v1_graph_reader.h).
namespace {

constexpr char kRuleV2 = '\x02';
constexpr char kRuleChecked = '\x03';

struct RuleRecord {
  StoredRule rule;
  std::uint64_t added = 0, removed = 0;
};

bool decode_rule(std::string_view data, RuleRecord* out) {
  if (!data.empty() && (data[0] == kRuleV2 || data[0] == kRuleChecked)) {
    if (data.size() < 17) return false;
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

std::string encode_rule(std::string_view key, const RuleRecord& r) {
  std::string data(1, kRuleChecked);
  put_u64(data, r.added);
  put_u64(data, r.removed);
  data += r.rule.name;
  data += '\0';
  data += r.rule.source;
  append_record_check(data, key);
  return data;
}

bool visible(const RuleRecord& r, std::uint64_t through) {
  return r.added <= through && (r.removed == 0 || r.removed > through);
}

// Every stored rule record in key order; what names the caller in errors. An index of this
// format holds checked records only, so any other form is damage; a version-1 file
// (RuleForms::kAny) holds the untagged form, undecodable records skipped.
Status for_each_rule(MDB_txn* txn, const Tables& t, const char* what, RuleForms forms,
                     const std::function<void(std::string_view key, RuleRecord& r)>& visit) {
  MDB_cursor* cursor = nullptr;
  int rc = mdb::cursor_open(txn, t.rules, &cursor);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, what);
  MDB_val k, v;
  RuleRecord r;
  KeyOrder order;
  rc = mdb::cursor_get(cursor, &k, &v, MDB_FIRST);
  while (rc == MDB_SUCCESS) {
    if (!order.next(as_view(k))) {
      mdb_cursor_close(cursor);
      return index_damage(txn, "the rules table's keys are out of order");
    }
    std::string_view data = as_view(v);
    const bool checked = !data.empty() && data[0] == kRuleChecked;
    const char* damage = nullptr;
    if (checked && !checked_payload(as_view(k), as_view(v), &data)) damage = "a rule record is damaged";
    const bool decoded = damage == nullptr && decode_rule(data, &r);
    if (forms == RuleForms::kChecked && damage == nullptr && (!checked || !decoded)) {
      damage = "a rule record is malformed";
    }
    if (damage != nullptr) {
      mdb_cursor_close(cursor);
      return index_damage(txn, damage);
    }
    if (decoded) visit(as_view(k), r);
    rc = mdb::cursor_get(cursor, &k, &v, MDB_NEXT);
  }
  mdb_cursor_close(cursor);
  return rc == MDB_NOTFOUND ? Status::OK() : status_from_mdb(rc, what);
}

}  // namespace

Status read_rules(MDB_txn* txn, const Tables& t, std::vector<StoredRule>* out, std::uint64_t through,
                  RuleForms forms) {
  out->clear();
  return for_each_rule(txn, t, "read rules", forms, [&](std::string_view, RuleRecord& r) {
    if (visible(r, through)) out->push_back(std::move(r.rule));
  });
}

Status write_rule(MDB_txn* txn, const Tables& t, const StoredRule& rule, std::uint64_t log_seq) {
  std::uint64_t seq = 0;
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kNextRule, &seq));
  std::string key;
  put_u64(key, seq);
  const std::string data = encode_rule(key, RuleRecord{rule, log_seq, 0});
  MDB_val k = as_val(key), v = as_val(data);
  const int rc = mdb::put(txn, t.rules, &k, &v, 0);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write rule");
  return write_counter(txn, t.meta, meta_key::kNextRule, seq + 1);
}

Status delete_rules(MDB_txn* txn, const Tables& t, const std::string& name, std::uint64_t log_seq,
                    int* removed) {
  *removed = 0;
  std::vector<std::pair<std::string, std::string>> doomed;  // key, new data
  DATALOG_RETURN_IF_ERROR(for_each_rule(txn, t, "delete rules", RuleForms::kChecked, [&](std::string_view key, RuleRecord& r) {
    if (r.removed != 0 || r.rule.name != name) return;
    r.removed = std::max<std::uint64_t>(log_seq, 1);
    doomed.emplace_back(std::string(key), encode_rule(key, r));
  }));
  for (const auto& [key, data] : doomed) {
    MDB_val dk = as_val(key), dv = as_val(data);
    const int rc = mdb::put(txn, t.rules, &dk, &dv, 0);
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, "delete rule");
    ++*removed;
  }
  return Status::OK();
}

}  // namespace datalog::store
