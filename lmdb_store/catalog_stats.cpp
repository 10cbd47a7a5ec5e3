// Statistics for planners (catalog.h): per attribute, keyed by its id, and for the whole graph.
#include "lmdb_store/catalog.h"

#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/page_fault_guard.h"

namespace datalog::store {

Status read_attribute_stats(MDB_txn* txn, const Tables& t, EntityId a, AttributeStats* out) {
  const std::string key = ordered_int_key(a);
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
  const std::string key = ordered_int_key(a);
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

}  // namespace datalog::store
