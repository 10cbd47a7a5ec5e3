// Long values (catalog.h): the full text of values too long for an index key, by their hash.
#include "lmdb_store/catalog.h"

#include <fmt/format.h>
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/record_check.h"
#include "lmdb_store/stored_value.h"

namespace datalog::store {

Status store_giant(MDB_txn* txn, const Tables& t, const Value& value) {
  const GiantHash hash = giant_hash(value);
  const std::string key(reinterpret_cast<const char*>(hash.data()), hash.size());
  std::string stored = encode_stored_value(value);
  append_record_check(stored, key);
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
  std::string_view stored = as_view(v);
  const bool checked = hash_bytes == kGiantHashBytes;
  if (checked && !checked_payload(key, as_view(v), &stored)) {
    return index_damage(txn, "a long value is malformed");
  }
  auto decoded = decode_stored_value(stored);
  if (!decoded) return index_damage(txn, "a long value is malformed");
  *value = std::move(*decoded);
  return Status::OK();
}

}  // namespace datalog::store
