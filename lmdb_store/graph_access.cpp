#include "lmdb_store/graph_access.h"

#include <algorithm>
#include <cmath>

#include "lmdb_store/datom_scan.h"
#include "lmdb_store/read_view.h"
#include "lmdb_store/scan_plan.h"

namespace datalog::store {

// A DatomScan over the key ranges of the index plan_scan chose for a filter (scan_plan.h). The
// fixed parts the ranges do not cover are filtered here.
class FilteredScan final : public DatomCursor {
 public:
  // committed: the graph's cache when txn is a read snapshot (DatomScan::set_committed_cache).
  // cursors: the snapshot's, when txn is a read snapshot that outlives this scan's use.
  Status start(GraphEnv& env, MDB_txn* txn, const DatomFilter& f, const ScanPlan& plan,
               const TimeView& view, const ReadCache* committed, SnapshotCursors* cursors = nullptr) {
    scan_.set_committed_cache(committed);
    env_ = &env;
    txn_ = txn;
    cursors_ = cursors;
    view_ = view;
    filter_ = f;
    done_ = false;
    index_ = index_of(plan.index);
    scan_.set_skip_values(f.values_unused && !f.v && f.v_ranges.empty());
    keys_.e = f.e;
    keys_.a = f.a;
    keys_.values.clear();
    if (f.v) keys_.values.push_back(*f.v);
    keys_.value_ranges.clear();
    for (const ValueRange& r : f.v_ranges) {
      if (!(r.high < r.low)) keys_.value_ranges.push_back(value_key_range(r));
    }
    scan_key_ranges(plan, keys_, &ranges_);
    const ScanShape& use = plan.use;
    exact_ = (!f.e || use.e) && (!f.a || use.a) && (!f.v || use.v) && (f.v_ranges.empty() || use.v_range);
    range_ = 0;
    return start_range();
  }
  bool at_end() const override { return done_ || scan_.at_end(); }
  const Datom& datom() const override { return scan_.datom(); }
  Datom& take_datom() override { return scan_.take_datom(); }
  Status next() override {
    DATALOG_RETURN_IF_ERROR(scan_.next());
    return settle();
  }
  // Its LMDB cursor lives for one batch (DatomScan::fill): between batches it holds no pages.
  bool keepable() const override { return true; }

 private:
  // Starts the scan of the first range from range_ on; done_ after the last. The scan ends
  // before its reader writes again, so it may read ahead.
  Status start_range() {
    if (range_ >= ranges_.size()) {
      done_ = true;
      return Status::OK();
    }
    const KeyRange& r = ranges_[range_];
    DATALOG_RETURN_IF_ERROR(scan_.start(*env_, txn_, index_, r.from, r.to, view_,
                                        DatomScan::ReadAhead::Snapshot, cursors_));
    return settle();
  }

  // On a datom that matches the filter, moving on through the ranges; done_ after the last.
  Status settle() {
    for (;;) {
      while (!scan_.at_end()) {
        if (exact_ || matches(scan_.datom())) return Status::OK();
        DATALOG_RETURN_IF_ERROR(scan_.next());
      }
      if (++range_ >= ranges_.size()) {
        done_ = true;
        return Status::OK();
      }
      const KeyRange& r = ranges_[range_];
      DATALOG_RETURN_IF_ERROR(scan_.start(*env_, txn_, index_, r.from, r.to, view_,
                                          DatomScan::ReadAhead::Snapshot, cursors_));
    }
  }

  bool matches(const Datom& d) const {
    return (!filter_.e || d.e == *filter_.e) && (!filter_.a || d.a == *filter_.a) &&
           (!filter_.v || d.v == *filter_.v) && filter_.in_v_ranges(d.v);
  }

  GraphEnv* env_ = nullptr;
  MDB_txn* txn_ = nullptr;
  SnapshotCursors* cursors_ = nullptr;
  TimeView view_;
  IndexId index_ = IndexId::Eavt;
  bool done_ = false, exact_ = true;
  DatomFilter filter_;
  ScanKeys keys_;
  std::vector<KeyRange> ranges_;
  std::size_t range_ = 0;
  DatomScan scan_;
};

SpareScan::SpareScan() = default;
SpareScan::~SpareScan() = default;

GraphAccess::GraphAccess(GraphEnv& env, MDB_txn* snapshot) : env_(env), snapshot_(snapshot) {}
GraphAccess::GraphAccess(const ReadSnapshot& snapshot) : env_(snapshot.env()), snapshot_(snapshot.txn()) {}
GraphAccess::GraphAccess(GraphEnv& env, WriteTxn& writer) : env_(env), writer_(&writer) {}
GraphAccess::~GraphAccess() = default;

Status GraphAccess::open_cursor(const DatomFilter& f, const TimeView& view,
                                std::unique_ptr<DatomCursor>* out) {
  // A cursor this reader's kind made before is started again, keeping its room (a query table
  // streams one scan per call).
  auto* reused = dynamic_cast<FilteredScan*>(out->get());
  std::unique_ptr<DatomCursor> made;
  if (!reused) {
    made = std::make_unique<FilteredScan>();
    reused = static_cast<FilteredScan*>(made.get());
  }
  // A cursor must not outlive its reader (storage.h), whose snapshot stays the same for its
  // life: so it may read through the snapshot's kept cursors too, as scan() does. Each batch
  // seeks again, so cursors of one index interleaving their batches share one LMDB cursor.
  const Status st = reused->start(env_, txn(), f, plan_for(f), bounded(view), committed_cache(),
                                  writer_ ? nullptr : &snapshot_cursors_);
  if (made) *out = std::move(made);
  if (!st.ok()) out->reset();
  return st;
}

Status GraphAccess::scan(const DatomFilter& f, const TimeView& view,
                         const std::function<bool(const Datom&)>& each) {
  std::unique_ptr<FilteredScan> own;
  FilteredScan* s = nullptr;
  SpareScan& spare = *spare_;
  if (spare.in_use_) {
    own = std::make_unique<FilteredScan>();
    s = own.get();
  } else {
    if (!spare.scan_) spare.scan_ = std::make_unique<FilteredScan>();
    s = spare.scan_.get();
    spare.in_use_ = true;
  }
  struct Release {
    bool* in_use;
    ~Release() { if (in_use) *in_use = false; }
  } release{own ? nullptr : &spare.in_use_};
  // The scan ends within this call, so it may read through the snapshot's kept cursors.
  DATALOG_RETURN_IF_ERROR(s->start(env_, txn(), f, plan_for(f), bounded(view), committed_cache(),
                                   writer_ ? nullptr : &snapshot_cursors_));
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

ScanPlan GraphAccess::plan_for(const DatomFilter& f) {
  ScanShape shape;
  shape.e = f.e.has_value();
  shape.a = f.a.has_value();
  shape.v = f.v.has_value();
  shape.v_is_ref = f.v && f.v->is(ValueKind::Ref);
  shape.v_range = !f.v_ranges.empty();
  shape.value_order = f.value_order;
  const auto bits = static_cast<std::uint8_t>(shape.e | shape.a << 1 | shape.v << 2 | shape.v_is_ref << 3 |
                                              shape.v_range << 4 | shape.value_order << 5);
  const EntityId a = f.a.value_or(0);
  PlanMemo& memo = writer_ ? writer_plans_
                           : PlanMemo::of_thread(env_.read_cache().id(), mdb_txn_id(snapshot_));
  if (const ScanPlan* known = memo.find(bits, a)) return *known;
  const ScanPlan plan = plan_scan(shape, graph_stats(), f.a ? &attribute_stats(*f.a) : nullptr);
  memo.add(bits, a, plan);
  return plan;
}

double GraphAccess::estimate(const DatomFilter& f) { return plan_for(f).matches; }

// A snapshot's statistics and idents are those of its committed state; a write transaction's move.
EstimateSource GraphAccess::estimate_source() const {
  if (writer_) return {};
  return EstimateSource{env_.read_cache().id(), mdb_txn_id(snapshot_)};
}

// A read snapshot consults and feeds the shared cache of committed idents; a write transaction
// reads its own (possibly uncommitted) idents directly.
Status GraphAccess::entity_of(const Value& ident, std::optional<EntityId>* out) {
  return lookup_ident(catalog_txn(), env_.tables(), writer_ ? nullptr : &env_.read_cache(), ident, out);
}

Status GraphAccess::ident_of(EntityId id, std::optional<Value>* out) {
  return ident_name(catalog_txn(), env_.tables(), writer_ ? nullptr : &env_.read_cache(), id, out);
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
  DATALOG_RETURN_IF_ERROR(store::tx_as_of_time(catalog_txn(), env_.tables(), ms, tx));
  if (*tx > visible_through_) *tx = visible_through_;
  return Status::OK();
}

Status GraphAccess::tx_time(std::uint64_t tx, std::int64_t* ms) {
  if (writer_ && tx == writer_->tx()) {
    *ms = writer_->tx_time_ms();
    return Status::OK();
  }
  std::optional<TxInfo> info;
  DATALOG_RETURN_IF_ERROR(read_tx_info(catalog_txn(), env_.tables(), tx, &info));
  *ms = info ? info->time_ms : 0;
  return Status::OK();
}

Status GraphAccess::rules(std::vector<StoredRule>* out) {
  return read_rules(catalog_txn(), env_.tables(), out, writer_ ? UINT64_MAX : rules_through_);
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
