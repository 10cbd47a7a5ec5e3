#include "lmdb_store/graph_access.h"

#include <algorithm>
#include <cmath>

#include "lmdb_store/datom_scan.h"
#include "lmdb_store/key_coding.h"

namespace datalog::store {

namespace {

std::string id_bytes(EntityId id) {
  std::string s;
  put_i64(s, id);
  return s;
}

}  // namespace

// A DatomScan over the index a filter's fixed parts choose: entity -> EAVT, attribute + value ->
// AVET, attribute -> AEVT, a reference value -> VAET, otherwise all of EAVT. Datoms the key
// range cannot exclude are filtered here.
class FilteredScan final : public DatomCursor {
 public:
  // cursors: the snapshot's, when txn is a read snapshot that outlives this scan's use.
  Status start(GraphEnv& env, MDB_txn* txn, const DatomFilter& f, const TimeView& view,
               SnapshotCursors* cursors = nullptr) {
    env_ = &env;
    txn_ = txn;
    cursors_ = cursors;
    view_ = view;
    filter_ = f;
    ranged_ = false;
    done_ = false;
    scan_.set_skip_values(f.values_unused && !f.v && f.v_ranges.empty());
    if (!f.v_ranges.empty() && f.a && !f.e && !f.v) {
      // Value ranges of one attribute: each range is one key range of AVET, in key order.
      ranged_ = true;
      range_ = 0;
      return start_range();
    }
    IndexId index = IndexId::Eavt;
    std::string& prefix = prefix_;  // reused when the scan is started again
    prefix.clear();
    exact_ = f.v_ranges.empty();  // the key range holds only matching datoms
    if (f.e) {
      put_i64(prefix, *f.e);
      if (f.a) {
        put_i64(prefix, *f.a);
        if (f.v) encode_value(prefix, *f.v);
      } else {
        exact_ = exact_ && !f.v;
      }
    } else if (f.a && f.v) {
      index = IndexId::Avet;
      put_i64(prefix, *f.a);
      encode_value(prefix, *f.v);
    } else if (f.a) {
      index = f.value_order ? IndexId::Avet : IndexId::Aevt;
      put_i64(prefix, *f.a);
    } else if (f.v && f.v->is(ValueKind::Ref)) {
      index = IndexId::Vaet;
      put_i64(prefix, f.v->as_ref());
    } else {
      exact_ = exact_ && !f.v;
    }
    end_key_.assign(prefix);
    advance_to_successor(end_key_);  // empty (scan to the end) when prefix is empty or all 0xFF
    // The scan ends before its reader writes again, so it may read ahead.
    DATALOG_RETURN_IF_ERROR(scan_.start(env, txn, index, prefix, end_key_, view, DatomScan::ReadAhead::Snapshot,
                                        cursors_));
    return skip_mismatches();
  }
  bool at_end() const override { return done_ || scan_.at_end(); }
  const Datom& datom() const override { return scan_.datom(); }
  Datom& take_datom() override { return scan_.take_datom(); }
  Status next() override {
    DATALOG_RETURN_IF_ERROR(scan_.next());
    if (ranged_ && scan_.at_end()) {
      ++range_;
      return start_range();
    }
    return skip_mismatches();
  }

 private:
  // Starts the scan of the first range from range_ on that holds a datom; done_ after the last.
  Status start_range() {
    for (; range_ < filter_.v_ranges.size(); ++range_) {
      const ValueRange& r = filter_.v_ranges[range_];
      if (r.high < r.low) continue;
      std::string low = id_bytes(*filter_.a), high = low;
      encode_value(low, r.low);
      encode_value(high, r.high);
      DATALOG_RETURN_IF_ERROR(scan_.start(*env_, txn_, IndexId::Avet, low, prefix_successor(high),
                                          view_, DatomScan::ReadAhead::Snapshot, cursors_));
      if (!scan_.at_end()) return Status::OK();
    }
    done_ = true;
    return Status::OK();
  }

  Status skip_mismatches() {
    while (!exact_ && !scan_.at_end()) {
      const Datom& d = scan_.datom();
      if ((!filter_.v || d.v == *filter_.v) && (!filter_.a || d.a == *filter_.a) &&
          filter_.in_v_ranges(d.v)) {
        break;
      }
      DATALOG_RETURN_IF_ERROR(scan_.next());
    }
    return Status::OK();
  }

  GraphEnv* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  SnapshotCursors* cursors_ = nullptr;
  TimeView view_;
  bool ranged_ = false, done_ = false;
  std::size_t range_ = 0;
  DatomFilter filter_;
  bool exact_ = true;
  std::string prefix_, end_key_;
  DatomScan scan_;
};

GraphAccess::GraphAccess(GraphEnv& env, MDB_txn* snapshot) : env_(env), snapshot_(snapshot) {}
GraphAccess::GraphAccess(GraphEnv& env, WriteTxn& writer) : env_(env), writer_(&writer) {}
GraphAccess::~GraphAccess() = default;

Status GraphAccess::open_cursor(const DatomFilter& f, const TimeView& view,
                                std::unique_ptr<DatomCursor>* out) {
  auto cursor = std::make_unique<FilteredScan>();
  DATALOG_RETURN_IF_ERROR(cursor->start(env_, txn(), f, bounded(view)));
  *out = std::move(cursor);
  return Status::OK();
}

Status GraphAccess::scan(const DatomFilter& f, const TimeView& view,
                         const std::function<bool(const Datom&)>& each) {
  std::unique_ptr<FilteredScan> own;
  FilteredScan* s = nullptr;
  if (spare_in_use_) {
    own = std::make_unique<FilteredScan>();
    s = own.get();
  } else {
    if (!spare_scan_) spare_scan_ = std::make_unique<FilteredScan>();
    s = spare_scan_.get();
    spare_in_use_ = true;
  }
  struct Release {
    bool* in_use;
    ~Release() { if (in_use) *in_use = false; }
  } release{own ? nullptr : &spare_in_use_};
  // The scan ends within this call, so it may read through the snapshot's kept cursors.
  DATALOG_RETURN_IF_ERROR(s->start(env_, txn(), f, bounded(view), writer_ ? nullptr : &snapshot_cursors_));
  while (!s->at_end()) {
    if (!each(s->datom())) return Status::OK();
    DATALOG_RETURN_IF_ERROR(s->next());
  }
  return Status::OK();
}

// Statistics come from the shared cache when this is a read snapshot of a state already seen.
const GraphStats& GraphAccess::graph_stats() {
  if (have_stats_) return stats_;
  have_stats_ = true;
  if (!writer_) {
    const std::uint64_t id = mdb_txn_id(snapshot_);
    if (auto cached = env_.read_cache().graph_stats(id)) {
      stats_ = *cached;
      return stats_;
    }
    if (read_graph_stats(snapshot_, env_.tables(), &stats_).ok()) env_.read_cache().remember_graph_stats(id, stats_);
    return stats_;
  }
  read_graph_stats(txn(), env_.tables(), &stats_);
  return stats_;
}

const AttributeStats& GraphAccess::attribute_stats(EntityId a) {
  auto it = attribute_stats_.find(a);
  if (it != attribute_stats_.end()) return it->second;
  AttributeStats s;
  if (!writer_) {
    const std::uint64_t id = mdb_txn_id(snapshot_);
    if (auto cached = env_.read_cache().attribute_stats(id, a)) {
      s = *cached;
    } else if (read_attribute_stats(snapshot_, env_.tables(), a, &s).ok()) {
      env_.read_cache().remember_attribute_stats(id, a, s);
    }
  } else {
    read_attribute_stats(txn(), env_.tables(), a, &s);
  }
  return attribute_stats_.emplace(a, s).first->second;
}

double GraphAccess::estimate(const DatomFilter& f) {
  const GraphStats& g = graph_stats();
  const double n = std::max<double>(static_cast<double>(g.records), 1.0);
  const double entities = std::max<double>(static_cast<double>(g.entities), 1.0);
  const double per_entity = std::max(n / entities, 1.0);
  if (f.e) {
    if (f.a) return f.v ? 1.0 : std::max(per_entity / 4.0, 1.0);
    return per_entity;
  }
  if (f.a) {
    const AttributeStats& s = attribute_stats(*f.a);
    const double records = static_cast<double>(s.records);
    if (f.v) return std::max(records / std::max<double>(static_cast<double>(s.values), 1.0), 1.0);
    // Without histograms, a range of values is taken to hold a third of the attribute (the
    // classic default selectivity of an inequality).
    if (!f.v_ranges.empty()) return std::max(records / 3.0, 1.0);
    return std::max(records, 1.0);
  }
  if (f.v && f.v->is(ValueKind::Ref)) return per_entity;
  return n;
}

// A read snapshot consults and feeds the shared cache of committed idents; a write transaction
// reads its own (possibly uncommitted) idents directly.
Status GraphAccess::entity_of(const Value& ident, std::optional<EntityId>* out) {
  return lookup_ident(txn(), env_.tables(), writer_ ? nullptr : &env_.read_cache(), ident, out);
}

Status GraphAccess::ident_of(EntityId id, std::optional<Value>* out) {
  return ident_name(txn(), env_.tables(), writer_ ? nullptr : &env_.read_cache(), id, out);
}

Status GraphAccess::shared_name(EntityId id, const Value** out) {
  *out = nullptr;
  if (writer_) return Status::OK();
  if ((*out = env_.read_cache().name(id))) return Status::OK();
  std::optional<Value> name;
  DATALOG_RETURN_IF_ERROR(ident_of(id, &name));  // a name found is remembered by the cache
  if (name) *out = env_.read_cache().name(id);
  return Status::OK();
}

Status GraphAccess::tx_as_of_time(std::int64_t ms, std::uint64_t* tx) {
  DATALOG_RETURN_IF_ERROR(store::tx_as_of_time(txn(), env_.tables(), ms, tx));
  if (*tx > visible_through_) *tx = visible_through_;
  return Status::OK();
}

Status GraphAccess::tx_time(std::uint64_t tx, std::int64_t* ms) {
  if (writer_ && tx == writer_->tx()) {
    *ms = writer_->tx_time_ms();
    return Status::OK();
  }
  std::optional<TxInfo> info;
  DATALOG_RETURN_IF_ERROR(read_tx_info(txn(), env_.tables(), tx, &info));
  *ms = info ? info->time_ms : 0;
  return Status::OK();
}

Status GraphAccess::rules(std::vector<StoredRule>* out) {
  return read_rules(txn(), env_.tables(), out);
}

Status GraphAccess::need_writer() const {
  if (writer_) return Status::OK();
  return Status(StatusCode::Misuse, "this graph access is read-only");
}

std::uint64_t GraphAccess::tx() const { return writer_ ? writer_->tx() : 0; }
std::int64_t GraphAccess::tx_time_ms() const { return writer_ ? writer_->tx_time_ms() : 0; }

Status GraphAccess::resolve_ident(const Value& ident, EntityId* out) {
  DATALOG_RETURN_IF_ERROR(need_writer());
  return writer_->resolve_ident(ident, out);
}

Status GraphAccess::assert_fact(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                                std::int64_t valid_to) {
  DATALOG_RETURN_IF_ERROR(need_writer());
  return writer_->assert_fact(e, a, v, valid_from, valid_to);
}

Status GraphAccess::retract_fact(EntityId e, EntityId a, const Value& v, bool* stored) {
  DATALOG_RETURN_IF_ERROR(need_writer());
  return writer_->retract_fact(e, a, v, stored);
}

Status GraphAccess::add_rule(const StoredRule& rule) {
  DATALOG_RETURN_IF_ERROR(need_writer());
  return writer_->add_rule(rule);
}

Status GraphAccess::remove_rules(const std::string& name, int* removed) {
  DATALOG_RETURN_IF_ERROR(need_writer());
  return writer_->remove_rules(name, removed);
}

}  // namespace datalog::store
