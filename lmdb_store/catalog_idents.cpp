// Idents (catalog.h): a keyword or uuid naming an entity, both ways, directly or through the
// shared cache of committed names. ident_names: names whose keys (ident_name_key) differ only in
// their last two bytes share a record (ident_name_groups.h). ident_ids: the names of 16
// consecutive ids per record (ident_id_blocks.h). The data of both tables ends
// with the record's check byte (record_check.h).
#include "lmdb_store/catalog.h"

#include <algorithm>

#include "engine/uuid_text.h"
#include "lmdb_store/ident_id_blocks.h"
#include "lmdb_store/ident_name_groups.h"
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

}  // namespace

Status lookup_ident(MDB_txn* txn, const Tables& t, const Value& given, std::optional<EntityId>* id) {
  id->reset();
  std::string name_key;
  ident_name_key(name_key, canonical_ident(given));
  const std::string_view group = name_group_key(name_key);
  MDB_val k = as_val(group), v;
  const int rc = mdb::get(txn, t.ident_names, &k, &v);
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident");
  std::string_view payload;
  NameGroupPlace place;
  if (!checked_payload(group, as_view(v), &payload) || !search_name_group(payload, name_tail(name_key), &place)) {
    return index_damage(txn, "an ident entry is malformed");
  }
  if (place.found) *id = place.id;
  return Status::OK();
}

Status ident_name(MDB_txn* txn, const Tables& t, EntityId id, std::optional<Value>* name) {
  name->reset();
  const std::string key = id_block_key(id);
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, t.ident_ids, &k, &v);
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident name");
  std::string_view payload, stored;
  bool found = false;
  if (!checked_payload(key, as_view(v), &payload) || !find_in_id_block(payload, id_block_slot(id), &found, &stored)) {
    return index_damage(txn, "an ident name is malformed");
  }
  if (!found) return Status::OK();
  *name = decode_stored_value(stored);
  if (!name->has_value()) return index_damage(txn, "an ident name is malformed");
  return Status::OK();
}

namespace {

// Where a record keyed key is, for a writer's cursor, cheapest first.
enum class Place {
  kWritten,   // the record the cursor is building or last put, under it: rewritten in place
  kAfterAll,  // no such record, and key sorts after every key: appended
  kFound,     // found by search, the cursor on it: rewritten in place
  kMissing,   // no such record: put where it sorts
};

// Puts written's record if it is held back.
int put_held(MDB_cursor* cursor, IdentCursors::Written* written) {
  if (!written->pending) return MDB_SUCCESS;
  MDB_val k = as_val(written->key), v = as_val(written->data);
  int rc = mdb::cursor_put(cursor, &k, &v, written->put_flags);
  if (rc == MDB_KEYEXIST && written->put_flags == MDB_APPEND) {  // not last after all: by search
    k = as_val(written->key);
    v = as_val(written->data);
    rc = mdb::cursor_put(cursor, &k, &v, 0);
  }
  written->pending = false;
  if (rc != MDB_SUCCESS) written->key.clear();
  return rc;
}

int seek_record(MDB_cursor* cursor, std::string_view key, IdentCursors::Written* written,
                MDB_val* data, Place* place) {
  if (!written->key.empty() && written->key == key) {
    *place = Place::kWritten;
    return MDB_SUCCESS;
  }
  // The cursor moves off the record: it goes in first.
  int rc = put_held(cursor, written);
  written->key.clear();
  if (rc != MDB_SUCCESS) return rc;
  MDB_val k;
  rc = mdb::cursor_get(cursor, &k, data, MDB_GET_CURRENT);
  if (rc == MDB_SUCCESS && as_view(k).compare(key) < 0) {  // LMDB's order: bytes, then length
    MDB_val next_key, next_data;
    if (mdb::cursor_get(cursor, &next_key, &next_data, MDB_NEXT) == MDB_NOTFOUND) {
      *place = Place::kAfterAll;  // the cursor stays at the end, where an append needs no search
      return MDB_SUCCESS;
    }
  }
  k = as_val(key);
  rc = mdb::cursor_get(cursor, &k, data, MDB_SET_KEY);
  *place = rc == MDB_SUCCESS ? Place::kFound : Place::kMissing;
  return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

// The data of the record seek_record placed, without its check byte (empty for a new record):
// its bytes as built here, or read and checked. False when the check byte is wrong.
bool placed_payload(Place place, std::string_view key, const MDB_val& stored,
                    const IdentCursors::Written& written, std::string_view* payload) {
  switch (place) {
    case Place::kWritten:
      *payload = std::string_view(written.data).substr(0, written.data.size() - 1);
      return true;
    case Place::kFound: return checked_payload(key, as_view(stored), payload);
    case Place::kAfterAll:
    case Place::kMissing: break;
  }
  *payload = {};
  return true;
}

// Takes the record built in cursors->scratch (its check byte appended here) as *written's, held
// back until the writer moves on (seek_record) or flushes. A record already in LMDB under the
// cursor is rewritten in place (MDB_CURRENT); a new one is appended or put by search.
void hold_record(std::string_view key, Place place, IdentCursors* cursors, IdentCursors::Written* written) {
  std::string& data = cursors->scratch;
  append_record_check(data, key);
  if (place != Place::kWritten) {
    written->key.assign(key);
    written->put_flags = place == Place::kFound ? MDB_CURRENT : place == Place::kAfterAll ? MDB_APPEND : 0;
  } else if (!written->pending) {
    written->put_flags = MDB_CURRENT;  // put before, the cursor still on it
  }
  written->pending = true;
  std::swap(written->data, data);
}

// Adds new id's name to its block of ident_ids.
Status put_id_name(IdentCursors* cursors, EntityId id, std::string_view stored_name) {
  const std::string key = id_block_key(id);
  MDB_val v;
  Place place;
  int rc = seek_record(cursors->ids, key, &cursors->id_block, &v, &place);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident names");
  std::string_view payload;
  if (!placed_payload(place, key, v, cursors->id_block, &payload) ||
      !add_to_id_block(payload, id_block_slot(id), stored_name, &cursors->scratch)) {
    return index_damage(mdb_cursor_txn(cursors->ids), "an ident name block is malformed or names the new id already");
  }
  hold_record(key, place, cursors, &cursors->id_block);
  return Status::OK();
}

}  // namespace

Status create_ident(IdentCursors* cursors, const Value& given, EntityId new_id, EntityId* id,
                    bool* created, bool* at_end) {
  *created = *at_end = false;
  const Value name = canonical_ident(given);
  std::string name_key;
  ident_name_key(name_key, name);
  const std::string_view group = name_group_key(name_key);
  MDB_val v;
  Place place;
  int rc = seek_record(cursors->names, group, &cursors->name_group, &v, &place);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read ident");
  std::string_view payload;
  NameGroupPlace in_group;
  if (!placed_payload(place, group, v, cursors->name_group, &payload) ||
      !search_name_group(payload, name_tail(name_key), &in_group)) {
    return index_damage(mdb_cursor_txn(cursors->names), "an ident entry is malformed");
  }
  if (in_group.found) {
    *id = in_group.id;
    return Status::OK();
  }
  insert_into_name_group(payload, in_group.insert_at, name_tail(name_key), new_id, &cursors->scratch);
  hold_record(group, place, cursors, &cursors->name_group);
  *at_end = place == Place::kWritten || place == Place::kAfterAll;
  DATALOG_RETURN_IF_ERROR(put_id_name(cursors, new_id, encode_stored_value(name)));
  *id = new_id;
  *created = true;
  return Status::OK();
}

Status flush_ident_writes(IdentCursors* cursors) {
  int rc = cursors->names ? put_held(cursors->names, &cursors->name_group) : MDB_SUCCESS;
  if (rc == MDB_SUCCESS && cursors->ids) rc = put_held(cursors->ids, &cursors->id_block);
  return rc == MDB_SUCCESS ? Status::OK() : status_from_mdb(rc, "write idents");
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
