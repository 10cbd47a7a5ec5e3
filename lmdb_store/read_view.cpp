#include "lmdb_store/read_view.h"

#include "lmdb_store/datom_layout.h"
#include "lmdb_store/meta.h"

namespace datalog::store {

Status ReadSnapshot::begin(std::shared_ptr<GraphEnv> env, std::unique_ptr<ReadSnapshot>* out) {
  MDB_txn* txn = nullptr;
  DATALOG_RETURN_IF_ERROR(env->begin_read(&txn));
  out->reset(new ReadSnapshot(Key(), std::move(env), txn));
  return Status::OK();
}

Status ReadSnapshot::begin(std::shared_ptr<GraphEnv> env, std::shared_ptr<ReadSnapshot>* out) {
  MDB_txn* txn = nullptr;
  DATALOG_RETURN_IF_ERROR(env->begin_read(&txn));
  *out = std::make_shared<ReadSnapshot>(Key(), std::move(env), txn);
  return Status::OK();
}

std::uint64_t ReadSnapshot::id() const { return mdb_txn_id(txn_); }

namespace {

Status read_position(MDB_txn* txn, const Tables& t, IndexPosition* out) {
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kIndexedSeq, &out->seq));
  std::uint64_t unfinished_from = 0;
  DATALOG_RETURN_IF_ERROR(read_counter(txn, t.meta, meta_key::kUnfinishedFrom, &unfinished_from));
  out->unfinished = unfinished_from != 0;
  return read_counter(txn, t.meta, meta_key::kIndexedTime, &out->time);
}

Status read_tx_time(MDB_txn* txn, const Tables& t, std::uint64_t tx, std::optional<std::int64_t>* ms) {
  std::optional<TxInfo> info;
  DATALOG_RETURN_IF_ERROR(read_tx_info(txn, t, tx, &info));
  *ms = info ? std::optional<std::int64_t>(info->time_ms) : std::nullopt;
  return Status::OK();
}

}  // namespace

Status ReadSnapshot::position(IndexPosition* out) const { return read_position(txn_, env_->tables(), out); }

Status ReadSnapshot::owner(IndexOwner* out) const {
  const MDB_dbi meta = env_->tables().meta;
  DATALOG_RETURN_IF_ERROR(read_text(txn_, meta, meta_key::kOwnerUuid, &out->uuid));
  DATALOG_RETURN_IF_ERROR(read_text(txn_, meta, meta_key::kOwnerDatabase, &out->database));
  DATALOG_RETURN_IF_ERROR(read_text(txn_, meta, meta_key::kOwnerFile, &out->file));
  return read_text(txn_, meta, meta_key::kOwnerTable, &out->table);
}

Status ReadSnapshot::graph_stats(GraphStats* out) const { return read_graph_stats(txn_, env_->tables(), out); }

Status ReadSnapshot::tx_time(std::uint64_t tx, std::optional<std::int64_t>* ms) const {
  return read_tx_time(txn_, env_->tables(), tx, ms);
}

Status index_position(WriteTxn& w, IndexPosition* out) { return read_position(w.read_txn(), w.env().tables(), out); }

Status graph_stats(WriteTxn& w, GraphStats* out) { return read_graph_stats(w.read_txn(), w.env().tables(), out); }

Status write_index_owner(WriteTxn& w, const IndexOwner& owner) {
  DATALOG_RETURN_IF_ERROR(w.set_meta_text(meta_key::kOwnerUuid, owner.uuid));
  DATALOG_RETURN_IF_ERROR(w.set_meta_text(meta_key::kOwnerDatabase, owner.database));
  DATALOG_RETURN_IF_ERROR(w.set_meta_text(meta_key::kOwnerFile, owner.file));
  return w.set_meta_text(meta_key::kOwnerTable, owner.table);
}

Status ReadView::lookup_ident(const Value& name, std::optional<EntityId>* out) const {
  return store::lookup_ident(txn_, env_->tables(), shared_, name, out);
}

Status ReadView::ident_name(EntityId id, std::optional<Value>* out) const {
  return store::ident_name(txn_, env_->tables(), shared_, id, out);
}

Status ReadView::tx_time(std::uint64_t tx, std::optional<std::int64_t>* ms) const {
  return read_tx_time(txn_, env_->tables(), tx, ms);
}

Status ReadView::tx_as_of_time(std::int64_t ms, std::uint64_t* tx) const {
  return store::tx_as_of_time(txn_, env_->tables(), ms, tx);
}

Status ReadView::start_scan(DatomScan& scan, ScanIndex index, const KeyRange& range,
                            const TimeView& view, DatomScan::ReadAhead read_ahead) const {
  scan.set_committed_cache(shared_);  // set only on a snapshot
  return scan.start(*env_, txn_, index_of(index), range.from, range.to, view, read_ahead);
}

std::string datom_row_key(const Datom& d) {
  std::string key;
  encode_datom_key(key, IndexId::Eavt, d, kUnknownTxTime);  // vf written out: decodes alone
  return key;
}

Status fact_of_row_key(WriteTxn& w, std::string_view key, Datom* out) {
  GiantRef giant;
  if (!decode_datom(IndexId::Eavt, key, encode_record_data(key, kForever), out, &giant, nullptr)) {
    return Status(StatusCode::InvalidArgument, "the datom column does not hold a datom key");
  }
  if (giant.giant) DATALOG_RETURN_IF_ERROR(load_giant(w.read_txn(), w.env().tables(), giant.hash, &out->v));
  return Status::OK();
}

}  // namespace datalog::store
