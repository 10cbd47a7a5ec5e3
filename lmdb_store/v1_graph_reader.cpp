#include "lmdb_store/v1_graph_reader.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

#include "engine/time_text.h"
#include "lmdb_store/catalog.h"
#include "lmdb_store/page_fault_guard.h"
#include "lmdb_store/datom_layout.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/mdb_values.h"
#include "lmdb_store/table_cursor.h"
#include "lmdb_store/meta.h"
#include "lmdb_store/stored_value.h"
#include "lmdb_store/tx_log_format.h"

namespace datalog::store {

namespace {

constexpr std::size_t kRowBytes = std::size_t{1} << 20;  // a writer's rows are cut at this too
constexpr std::uint32_t kFirstFormat = 1;

// An EAVT key of the first format, as its log chunks hold them: e a (sign-flipped big-endian
// i64) V (values with 8-byte integers, instants and refs) | tx (u64) op (1 byte) vf (i64); the
// data is vt (i64). False when malformed.
bool decode_v1_eavt(std::string_view key, std::string_view data, Datom* d, GiantRef* giant) {
  constexpr std::size_t kSuffix = 8 + 1 + 8;
  if (key.size() < 16 + 1 + kSuffix || data.size() != 8) return false;
  const std::string_view value = key.substr(16, key.size() - 16 - kSuffix);
  DecodedValue v = decode_fixed_value(value, kV1GiantHashBytes);
  if (!v.ok || v.length != value.size()) return false;
  const std::string_view suffix = key.substr(key.size() - kSuffix);
  const auto op = static_cast<std::uint8_t>(suffix[8]);
  if (op > static_cast<std::uint8_t>(Op::Reassert)) return false;
  d->e = get_i64(key);
  d->a = get_i64(key.substr(8));
  d->v = std::move(v.value);
  d->tx = get_u64(suffix);
  d->op = static_cast<Op>(op);
  d->valid_from = get_i64(suffix.substr(9));
  d->valid_to = get_i64(data);
  giant->giant = v.giant;
  giant->hash = v.hash;
  return true;
}

// Builds rows transaction after transaction and hands each on when it is full or done.
class RowCutter {
 public:
  RowCutter(const std::function<Status(LogRow&)>& each, std::uint64_t* rows)
      : each_(each), rows_(rows) {}

  // Records go to transaction tx from now on (consumes: it takes its own counter).
  Status begin(std::uint64_t tx, std::int64_t time_ms, bool consumes) {
    DATALOG_RETURN_IF_ERROR(flush());
    tx_ = tx;
    time_ms_ = time_ms;
    consumes_ = consumes;
    return Status::OK();
  }
  std::string& body() { return body_; }
  std::int64_t time_ms() const { return time_ms_; }
  // After each record: a full row goes on, and its transaction continues in the next row.
  Status record_done() { return body_.size() >= kRowBytes ? flush() : Status::OK(); }
  Status flush() {
    if (body_.empty()) return Status::OK();
    LogRow row;
    row.tx = tx_;
    row.tx_time_ms = time_ms_;
    row.consumes_tx = consumes_;
    row.body = std::move(body_);
    body_.clear();
    ++*rows_;
    return each_(row);
  }

 private:
  const std::function<Status(LogRow&)>& each_;
  std::uint64_t* rows_;
  std::uint64_t tx_ = 0;
  std::int64_t time_ms_ = 0;
  bool consumes_ = false;
  std::string body_;
};

// A cursor closed when it goes out of scope (a read transaction's cursors must be closed).
// One pass over the file, in one read snapshot.
class Reading {
 public:
  Reading(const GraphEnv& env, MDB_txn* txn, const std::function<Status(LogRow&)>& each,
          V1GraphReader::Counts* counts)
      : env_(env), t_(env.tables()), txn_(txn), rows_(each, &counts->rows), counts_(*counts) {}

  Status run() {
    TableCursor cursor;
    DATALOG_RETURN_IF_ERROR(cursor.open(txn_, t_.txlog, "txlog"));
    DATALOG_RETURN_IF_ERROR(cursor.step(MDB_FIRST));
    while (!cursor.at_end()) {
      const std::string_view key = cursor.key();
      if (key.size() == 8) {
        DATALOG_RETURN_IF_ERROR(start_transaction(get_u64(key), cursor.data()));
      } else if (key.size() == kTxChunkKeySize) {
        DATALOG_RETURN_IF_ERROR(read_chunk(get_u64(key), cursor.data()));
      } else {
        return damaged(fmt::format("its transaction log has a key of {} bytes", key.size()));
      }
      DATALOG_RETURN_IF_ERROR(cursor.step(MDB_NEXT));
    }
    DATALOG_RETURN_IF_ERROR(end_transaction());
    if (!current_) {
      // No transaction: idents and rules (if any) go in a row that takes no counter (tx 0), as
      // a rules-only transaction's would.
      std::uint64_t last_time = 0;
      DATALOG_RETURN_IF_ERROR(read_counter(txn_, t_.meta, meta_key::kLastTxTime, &last_time));
      const auto time = last_time > 0 ? static_cast<std::int64_t>(last_time) : now_ms();
      DATALOG_RETURN_IF_ERROR(rows_.begin(0, time, false));
      DATALOG_RETURN_IF_ERROR(write_idents());
    }
    DATALOG_RETURN_IF_ERROR(write_rules());
    return rows_.flush();
  }

 private:
  struct Transaction {
    std::uint64_t tx = 0;
    std::uint64_t counted = 0;  // datoms, by its header
    std::uint64_t stored = 0;   // datoms found in its chunks
  };

  Status damaged(const std::string& what) const {
    return Status(
        StatusCode::Corrupt,
        fmt::format("graph '{}' (first storage format) is damaged: {}", env_.path(), what));
  }

  Status start_transaction(std::uint64_t tx, std::string_view header) {
    DATALOG_RETURN_IF_ERROR(end_transaction());
    if (tx == 0) return damaged("its transaction log has a transaction 0");
    if (header.size() != 16)
      return damaged(fmt::format("the header of transaction {} is malformed", tx));
    const bool first = !current_;
    current_ = Transaction{tx, get_u64(header.substr(8)), 0};
    ++counts_.transactions;
    DATALOG_RETURN_IF_ERROR(rows_.begin(tx, get_i64(header), true));
    // Every ident is made by the first row: ids are what the replay must reproduce, not when.
    return first ? write_idents() : Status::OK();
  }

  // A transaction that stored fewer datoms than it counted (none: only elided retractions)
  // must still take its counter.
  Status end_transaction() {
    if (!current_) return Status::OK();
    const Transaction& t = *current_;
    if (t.stored > t.counted) {
      return damaged(fmt::format("transaction {} holds {} datoms, its header counts {}", t.tx,
                                 t.stored, t.counted));
    }
    if (t.stored == 0 || t.stored < t.counted) {
      log_counter_consumed(rows_.body());
      DATALOG_RETURN_IF_ERROR(rows_.record_done());
    }
    return Status::OK();
  }

  Status read_chunk(std::uint64_t tx, std::string_view chunk) {
    if (!current_ || current_->tx != tx) {
      return damaged(
          fmt::format("its transaction log holds datoms of transaction {} without its header", tx));
    }
    bool failed_here =
        false;  // the error is this callback's (already says what), not the decoder's
    const Status st = decode_tx_chunk(chunk, [&](std::string_view key, std::string_view valid_to) {
      failed_here = true;
      Datom d;
      GiantRef giant;
      if (!decode_v1_eavt(key, valid_to, &d, &giant)) {
        return damaged(fmt::format("transaction {} holds a malformed datom", tx));
      }
      if (d.tx != tx) {
        return damaged(
            fmt::format("the log of transaction {} holds a datom of transaction {}", tx, d.tx));
      }
      if (giant.giant) {
        const Status loaded = load_giant(txn_, t_, giant.hash, &d.v, kV1GiantHashBytes);
        if (!loaded.ok()) return damaged(fmt::format("transaction {}: {}", tx, loaded.message()));
        if (!is_giant(d.v) || v1_giant_hash(d.v) != giant.hash) {
          return damaged(fmt::format("a long value of transaction {} does not match its hash", tx));
        }
      }
      // What the replay would refuse is refused here, before anything is written.
      if (d.v.is(ValueKind::Float) && std::isnan(d.v.as_float())) {
        return damaged(fmt::format("transaction {} holds a NaN value", tx));
      }
      // The calls that wrote the records: replaying them decides reassertions and
      // cancellations again, as the writer did.
      if (d.op == Op::Retract) {
        log_retract(rows_.body(), d.e, d.a, d.v);
      } else {
        log_assert(rows_.body(), d.e, d.a, d.v, d.valid_from, d.valid_to, rows_.time_ms());
      }
      ++current_->stored;
      ++counts_.datoms;
      DATALOG_RETURN_IF_ERROR(rows_.record_done());
      failed_here = false;
      return Status::OK();
    });
    if (st.ok() || failed_here) return st;
    return damaged(fmt::format("transaction {}: {}", tx, st.message()));  // a truncated chunk
  }

  // The id the first format's name table gives name (its ids are 8-byte i64s there).
  Status id_named(const Value& name, std::optional<EntityId>* id) {
    std::string key;
    encode_value(key, name);
    MDB_val k = as_val(key), v;
    const int rc = mdb::get(txn_, t_.ident_names, &k, &v);
    if (rc == MDB_NOTFOUND) {
      id->reset();
      return Status::OK();
    }
    if (rc != MDB_SUCCESS) return status_from_mdb(rc, "read the ident names");
    if (v.mv_size != 8) return damaged("an entry of its ident name table is malformed");
    *id = get_i64(as_view(v));
    return Status::OK();
  }

  Status write_idents() {
    TableCursor cursor;
    DATALOG_RETURN_IF_ERROR(cursor.open(txn_, t_.ident_ids, "ident_ids"));
    DATALOG_RETURN_IF_ERROR(cursor.step(MDB_FIRST));
    while (!cursor.at_end()) {
      if (cursor.key().size() != 8) return damaged("an entry of its ident table is malformed");
      const EntityId id = get_i64(cursor.key());
      const std::optional<Value> name = decode_stored_value(cursor.data());
      if (!name || !(name->is(ValueKind::Keyword) || name->is(ValueKind::Uuid))) {
        return damaged(fmt::format("the name of ident {} is malformed", id));
      }
      // Each name must be that id's alone, as the replay checks.
      std::optional<EntityId> named;
      DATALOG_RETURN_IF_ERROR(id_named(*name, &named));
      if (named != id) {
        return damaged(fmt::format("ident {} is named {}, which its ident table gives to {}", id,
                                   name->to_edn(), named ? fmt::to_string(*named) : "no entity"));
      }
      log_ident(rows_.body(), id, *name);
      ++counts_.idents;
      DATALOG_RETURN_IF_ERROR(rows_.record_done());
      DATALOG_RETURN_IF_ERROR(cursor.step(MDB_NEXT));
    }
    return Status::OK();
  }

  // Format 1 kept no transaction for a rule: they go in the last row, which takes no counter
  // for them.
  Status write_rules() {
    std::vector<StoredRule> rules;
    DATALOG_RETURN_IF_ERROR(read_rules(txn_, t_, &rules, UINT64_MAX, RuleForms::kAny));
    for (const StoredRule& rule : rules) {
      log_rule(rows_.body(), rule);
      ++counts_.rules;
      DATALOG_RETURN_IF_ERROR(rows_.record_done());
    }
    return Status::OK();
  }

  const GraphEnv& env_;
  const Tables& t_;
  MDB_txn* txn_;
  RowCutter rows_;
  V1GraphReader::Counts& counts_;
  std::optional<Transaction> current_;
};

}  // namespace

Status V1GraphReader::open(const std::string& path, std::unique_ptr<V1GraphReader>* out) {
  OpenOptions options;
  options.create = false;
  std::shared_ptr<GraphEnv> env;
  const Status st = GraphEnv::open(path, options, &env);
  if (st.code() == StatusCode::NotAGraph || st.code() == StatusCode::TooNew) {
    return Status(
        StatusCode::NotAGraph,
        fmt::format("'{}' is not a graph of the first storage format ({})", path, st.message()));
  }
  DATALOG_RETURN_IF_ERROR(st);
  if (env->format_version() != kFirstFormat) {
    return Status(
        StatusCode::NotAGraph,
        fmt::format("'{}' is not a graph of the first storage format: it has format {}{}", path,
                    env->format_version(),
                    env->format_version() >= 2 ? " (the index of a store table's log)" : ""));
  }
  out->reset(new V1GraphReader(std::move(env)));
  return Status::OK();
}

Status V1GraphReader::read(const std::function<Status(LogRow&)>& each, Counts* counts) {
  *counts = Counts{};
  MDB_txn* txn = nullptr;
  DATALOG_RETURN_IF_ERROR(env_->begin_read(&txn));
  Reading reading(*env_, txn, each, counts);
  const Status st = reading.run();
  env_->end_read(txn);
  return st;
}

}  // namespace datalog::store
