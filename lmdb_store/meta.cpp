#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"

#include <string>

#include <fmt/format.h>

#include "lmdb_store/graph_env.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"

namespace datalog::store {

namespace {

constexpr std::string_view kMagicText = "sqlite-datalog graph";

Status put_if_missing(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::string_view value) {
  MDB_val k = as_val(key);
  MDB_val v = as_val(value);
  const int rc = mdb::put(txn, meta, &k, &v, MDB_NOOVERWRITE);
  if (rc == MDB_KEYEXIST) return Status::OK();
  return status_from_mdb(rc, fmt::format("write metadata '{}'", key));
}

std::string u64_bytes(std::uint64_t x) {
  std::string s;
  put_u64(s, x);
  return s;
}

}  // namespace

Status initialize_meta(MDB_txn* txn, MDB_dbi meta) {
  std::string version;
  for (int shift = 24; shift >= 0; shift -= 8) {
    version += static_cast<char>((kFormatVersion >> shift) & 0xFF);
  }
  DATALOG_RETURN_IF_ERROR(put_if_missing(txn, meta, meta_key::kMagic, kMagicText));
  DATALOG_RETURN_IF_ERROR(put_if_missing(txn, meta, meta_key::kFormat, version));
  DATALOG_RETURN_IF_ERROR(put_if_missing(txn, meta, meta_key::kLastTx, u64_bytes(0)));
  DATALOG_RETURN_IF_ERROR(put_if_missing(txn, meta, meta_key::kNextIdent, u64_bytes(kFirstIdentId)));
  DATALOG_RETURN_IF_ERROR(put_if_missing(txn, meta, meta_key::kRecords, u64_bytes(0)));
  return put_if_missing(txn, meta, meta_key::kEntities, u64_bytes(0));
}

Status read_format_version(MDB_txn* txn, MDB_dbi meta, std::uint32_t* version) {
  MDB_val k = as_val(meta_key::kMagic);
  MDB_val v;
  if (mdb::get(txn, meta, &k, &v) != MDB_SUCCESS ||
      std::string_view(static_cast<const char*>(v.mv_data), v.mv_size) != kMagicText) {
    return Status(StatusCode::NotAGraph, "its metadata has no sqlite-datalog magic");
  }
  k = as_val(meta_key::kFormat);
  if (mdb::get(txn, meta, &k, &v) != MDB_SUCCESS || v.mv_size != 4) {
    return Status(StatusCode::NotAGraph, "its metadata has no format version");
  }
  const auto* b = static_cast<const unsigned char*>(v.mv_data);
  *version = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
             (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
  return Status::OK();
}

Status read_counter(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::uint64_t* value) {
  MDB_val k = as_val(key);
  MDB_val v;
  const int rc = mdb::get(txn, meta, &k, &v);
  if (rc == MDB_NOTFOUND) {
    *value = 0;
    return Status::OK();
  }
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("read metadata '{}'", key));
  if (v.mv_size != 8) {
    return index_damage(txn, fmt::format("metadata '{}' has {} bytes", key, v.mv_size));
  }
  *value = get_u64(std::string_view(static_cast<const char*>(v.mv_data), 8));
  return Status::OK();
}

Status write_counter(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::uint64_t value) {
  const std::string bytes = u64_bytes(value);
  MDB_val k = as_val(key);
  MDB_val v = as_val(bytes);
  const int rc = mdb::put(txn, meta, &k, &v, 0);
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("write metadata '{}'", key));
  return Status::OK();
}

Status read_text(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::string* value) {
  MDB_val k = as_val(key), v;
  const int rc = mdb::get(txn, meta, &k, &v);
  value->clear();
  if (rc == MDB_NOTFOUND) return Status::OK();
  if (rc != MDB_SUCCESS) return status_from_mdb(rc, fmt::format("read metadata '{}'", key));
  value->assign(static_cast<const char*>(v.mv_data), v.mv_size);
  return Status::OK();
}

Status write_text(MDB_txn* txn, MDB_dbi meta, std::string_view key, std::string_view value) {
  MDB_val k = as_val(key), v = as_val(value);
  return status_from_mdb(mdb::put(txn, meta, &k, &v, 0), fmt::format("write metadata '{}'", key));
}

}  // namespace datalog::store
