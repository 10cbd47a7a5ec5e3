// Idents (catalog.h): a keyword or uuid naming an entity, both ways, directly or through the
// shared cache of committed names. Ids are ordered integers (2 to 4 bytes); a name's key is its
// encoded length, then its encoded value (ident_name_key). The data of both tables ends with the
// record's check byte (record_check.h).
#include "lmdb_store/catalog.h"

#include <algorithm>

#include "engine/uuid_text.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"
#include "lmdb_store/stored_value.h"

namespace datalog::store {

namespace {

// A keyword whose name is a uuid (":22222222-3333-...") names that uuid's entity (§3).
Value canonical_ident(const Value& name) {
  if (name.is(ValueKind::Keyword) && name.as_keyword().size() == 37) {
    if (auto u = parse_uuid(std::string_view(name.as_keyword()).substr(1))) return Value::uuid(*u);
  }
  return name;
}

// The key of a name in ident_names: one byte of its encoded length (255 for 255 bytes or more),
// then the encoded name. Only exact look-ups read this table, so its order is free to serve the
// pages: names that differ only in a number (:e9, :e10, ... :e1000000, or IRIs that end in one)
// are made in numeric order, which is key order within one length, so new names go at the end of
// their length's run and fill its pages. Keyed by the name alone, each went into the middle of a
// page of longer names that share its prefix (":e10" < ":e100" < ":e11"), and LMDB split every
// page in half: the table took twice the pages.
void ident_name_key(std::string& key, const Value& name) {
  key.push_back('\0');
  encode_value(key, name);
  key[0] = static_cast<char>(std::min<std::size_t>(key.size() - 1, 255));
}

// The id in an ident_names record, when its check byte holds.
bool read_name_record(std::string_view key, std::string_view data, EntityId* id) {
  std::string_view id_bytes;
  return checked_payload(key, data, &id_bytes) && read_ordered_int_key(id_bytes, id);
}

}  // namespace

Status lookup_ident(MDB_txn* txn, const Tables& t, const Value& given, std::optional<EntityId>* id) {
  const Value name = canonical_ident(given);
  std::string key;
  ident_name_key(key, name);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.ident_names, &k, &v);
  if (rc == MDB_NOTFOUND) {
    id->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident");
  EntityId found = 0;
  if (!read_name_record(key, as_view(v), &found)) return index_damage(txn, "an ident entry is malformed");
  *id = found;
  return Status::OK();
}

Status ident_name(MDB_txn* txn, const Tables& t, EntityId id, std::optional<Value>* name) {
  const std::string key = ordered_int_key(id);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.ident_ids, &k, &v);
  if (rc == MDB_NOTFOUND) {
    name->reset();
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident name");
  std::string_view stored;
  if (!checked_payload(key, as_view(v), &stored)) return index_damage(txn, "an ident name is malformed");
  *name = decode_stored_value(stored);
  if (!name->has_value()) return index_damage(txn, "an ident name is malformed");
  return Status::OK();
}

namespace {

// Puts a new name's record when name_key sorts after every name, as appends guesses; MDB_KEYEXIST
// when it does not (or no guess was made): the name may exist, and the caller searches.
int put_name_at_end(MDB_cursor* names, MDB_val* name_key, MDB_val* id_data, NameAppends* appends) {
  if (!appends->try_end()) return MDB_KEYEXIST;
  appends->since_refused = 0;
  const int rc = mdb::cursor_put(names, name_key, id_data, MDB_APPEND);
  appends->appending = rc == MDB_SUCCESS;
  return rc;
}

// The insert is the lookup: when the name exists, LMDB hands back its id in id_data (MDB_KEYEXIST),
// a value read from the map like any other.
int put_name_or_find(MDB_cursor* names, MDB_val* name_key, MDB_val* id_data) {
  const int rc = mdb::cursor_put(names, name_key, id_data, MDB_NOOVERWRITE);
  const bool outside = rc == MDB_KEYEXIST && !fault_detail::within_file(mdb::env_of(names), nullptr, id_data);
  return outside ? kPageFault : rc;
}

}  // namespace

Status create_ident(const IdentCursors& cursors, const Value& given, EntityId new_id, EntityId* id,
                    bool* created, NameAppends* appends) {
  *created = false;
  const Value name = canonical_ident(given);
  std::string name_key;
  ident_name_key(name_key, name);
  const std::string idk = ordered_int_key(new_id);
  std::string id_data = idk;
  append_record_check(id_data, name_key);
  std::string stored = encode_stored_value(name);
  append_record_check(stored, idk);
  MDB_val k = as_val(name_key), v = as_val(id_data);
  int rc = put_name_at_end(cursors.names, &k, &v, appends);
  if (rc == MDB_KEYEXIST) {
    k = as_val(name_key);
    v = as_val(id_data);
    rc = put_name_or_find(cursors.names, &k, &v);
  }
  if (rc == MDB_KEYEXIST) {
    if (!read_name_record(name_key, as_view(v), id)) {
      return index_damage(mdb_cursor_txn(cursors.names), "an ident entry is malformed");
    }
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write ident");
  k = as_val(idk);
  v = as_val(stored);
  // Ids are handed out in order, so a new one mostly sorts last: appended, its page fills up
  // instead of splitting in half. LMDB refuses the append otherwise, and the put searches.
  rc = mdb::cursor_put(cursors.ids, &k, &v, MDB_APPEND);
  if (rc == MDB_KEYEXIST) {
    k = as_val(idk);
    v = as_val(stored);
    rc = mdb::cursor_put(cursors.ids, &k, &v, 0);
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "write ident name");
  *id = new_id;
  *created = true;
  return Status::OK();
}

namespace {

// An ident read from the index may be one a transaction made that has not committed (a large
// transaction commits the index part way, meta.h kUnfinishedFrom). Its id may later go to another
// name, so it is not shared. The bound is read once per committed state (txn is a snapshot).
bool ident_committed(MDB_txn* txn, const Tables& t, const ReadCache& shared, EntityId id) {
  const std::uint64_t state = mdb_txn_id(txn);
  std::uint64_t unfinished_from = 0;
  if (!shared.unfinished_from(state, &unfinished_from)) {
    if (!read_counter(txn, t.meta, meta_key::kUnfinishedFrom, &unfinished_from).ok()) return false;
    shared.remember_unfinished_from(state, unfinished_from);
  }
  return unfinished_from == 0 || static_cast<std::uint64_t>(id) < unfinished_from;
}

}  // namespace

Status lookup_ident(MDB_txn* txn, const Tables& t, ReadCache* shared, const Value& name,
                    std::optional<EntityId>* id) {
  if (!shared) return lookup_ident(txn, t, name, id);
  const std::uint64_t state = mdb_txn_id(txn);
  const ReadCache::IdentLookup known = shared->find_ident(state, name);
  *id = known.entity;
  if (known.entity || known.missing) return Status::OK();
  DATALOG_RETURN_IF_ERROR(lookup_ident(txn, t, name, id));
  if (*id) {
    if (ident_committed(txn, t, *shared, **id)) shared->remember_ident(name, **id);
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
  if (*name && ident_committed(txn, t, *shared, id)) shared->remember_name(id, **name);
  return Status::OK();
}

}  // namespace datalog::store
