// Model test: hundreds of random write transactions (asserts, retractions, savepoints,
// aborts) on a real graph, mirrored in HistoryModel; then every index, scanned whole and by
// prefix, in many bi-temporal views, must show exactly what the model says is visible, and the
// transaction log and statistics must agree with what was written.
#include <algorithm>
#include "history_model.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "lmdb_store/catalog.h"
#include "lmdb_store/key_coding.h"
#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr std::uint64_t kSeed = 20240611;
constexpr int kTransactions = 400;
constexpr int kMaxOpsPerTransaction = 16;
constexpr int kMaxSavepointDepth = 3;
constexpr std::size_t kRecentFacts = 24;
constexpr auto kBusyTimeout = std::chrono::milliseconds(5'000);
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

// Attributes: names (texts, giants among them), mixed kinds, two of references.
constexpr EntityId kName = 100;
constexpr EntityId kFriend = 101;
constexpr EntityId kMixed = -3;
constexpr EntityId kEdge = kMax;  // with entity and target kMax: the largest possible vaet key

struct Universe {
  std::vector<EntityId> entities{1, 2, 3, 42, -7, kMin, kMax, EntityId{1} << 52};
  std::vector<EntityId> attributes{kName, kFriend, kMixed, kEdge};
  std::map<EntityId, std::vector<Value>> values;
  std::vector<std::int64_t> valid_froms{-100, 0, 100, 200};
  std::vector<std::int64_t> valid_tos{50, 150, 300, kForever};  // some end before they start
  std::vector<std::int64_t> valid_ats{kMin, -100, -1, 0, 50, 99, 100, 150, 250, 299, 300, kMax};

  Universe() {
    const std::string g224(kInlineLimit, 'g');
    values[kName] = {Value::string(""),
                     Value::string("a"),
                     Value::string(std::string("a\0b", 3)),
                     Value::string("ab"),
                     Value::string("h\xC3\xA9llo \xE2\x82\xAC"),
                     Value::string(g224),                         // inline, at the limit
                     Value::string(g224 + std::string(76, 'g')),  // giants sharing
                     Value::string(g224 + "tail"),                //   their inline prefix
                     Value::string(std::string(230, 'h'))};
    Uuid u;
    u.bytes[0] = 0xAB;
    values[kMixed] = {Value::integer(-1),
                      Value::integer(0),
                      Value::integer(7),
                      Value::integer(kMax),
                      Value::integer(kMin),
                      Value::floating(0.0),
                      Value::floating(1.5),
                      Value::floating(-std::numeric_limits<double>::infinity()),
                      Value::boolean(true),
                      Value::boolean(false),
                      Value::nil(),
                      Value::instant(-86'400'000),
                      Value::keyword(":k/x"),
                      Value::keyword(":" + std::string(250, 'k')),
                      Value::bytes(std::string("\0\xFF", 2)),
                      Value::bytes(std::string(260, '\0')),
                      Value::uuid(u)};
    for (EntityId e : entities) values[kFriend].push_back(Value::ref(e));
    values[kEdge] = {Value::ref(kMax), Value::ref(1), Value::ref(-7)};
  }
};

struct Fact {
  EntityId e;
  EntityId a;
  Value v;
};

// Drives a graph and the model with the same random operations.
class Driver {
 public:
  Driver(std::shared_ptr<GraphEnv> env, HistoryModel& model)
      : env_(std::move(env)), model_(model), rng_(kSeed) {}

  void run_transaction() {
    std::unique_ptr<WriteTxn> w;
    const Status st = WriteTxn::begin(env_, kBusyTimeout, &w);
    INFO(describe(st));
    REQUIRE(st.ok());
    // A transaction that wrote nothing, or was aborted, consumed no counter.
    REQUIRE(w->tx() == model_.last_tx() + 1);
    model_.begin(w->tx(), w->tx_time_ms());
    const int ops = 1 + static_cast<int>(pick(kMaxOpsPerTransaction));
    for (int i = 0; i < ops; ++i) {
      step(*w);
      if (pick(20) == 0) check_writer_view(*w);
    }
    if (pick(10) == 0) {
      w->abort();
      model_.abort();
      ++aborted_;
    } else {
      const Status c = w->commit();
      INFO(describe(c));
      REQUIRE(c.ok());
      model_.commit();
    }
  }

  int aborted() const { return aborted_; }
  int rollbacks() const { return rollbacks_; }
  int writer_checks() const { return writer_checks_; }

 private:
  std::uint64_t pick(std::uint64_t n) { return rng_() % n; }
  template <typename T>
  const T& pick_from(const std::vector<T>& items) {
    return items[pick(items.size())];
  }

  Fact random_fact() {
    const EntityId a = pick_from(universe_.attributes);
    return Fact{pick_from(universe_.entities), a, pick_from(universe_.values.at(a))};
  }

  // Mostly facts seen lately, so retractions and reassertions hit something.
  Fact some_fact(int recent_percent) {
    if (!recent_.empty() && static_cast<int>(pick(100)) < recent_percent) {
      return pick_from(recent_);
    }
    return random_fact();
  }

  void remember(const Fact& f) {
    if (recent_.size() < kRecentFacts) {
      recent_.push_back(f);
    } else {
      recent_[pick(kRecentFacts)] = f;
    }
  }

  void step(WriteTxn& w) {
    const auto r = pick(100);
    const int depth = model_.savepoint_depth();
    if (r < 55) {
      const Fact f = some_fact(35);
      const std::int64_t vf = pick_from(universe_.valid_froms);
      const std::int64_t vt = pick_from(universe_.valid_tos);
      require_ok(w.assert_fact(f.e, f.a, f.v, vf, vt), "assert");
      model_.assert_fact(f.e, f.a, f.v, vf, vt);
      remember(f);
    } else if (r < 85) {
      Fact f = some_fact(75);
      // -0.0 is 0.0: retracting one retracts the other.
      if (f.v.is(ValueKind::Float) && f.v.as_float() == 0.0 && pick(2)) f.v = Value::floating(-0.0);
      require_ok(w.retract_fact(f.e, f.a, f.v), "retract");
      model_.retract_fact(f.e, f.a, f.v);
    } else if (r < 91) {
      if (depth < kMaxSavepointDepth) {
        require_ok(w.savepoint(depth), "savepoint");
        model_.savepoint(depth);
      }
    } else if (r < 95) {
      if (depth > 0) {
        const int level = static_cast<int>(pick(static_cast<std::uint64_t>(depth)));
        require_ok(w.release(level), "release");
        model_.release(level);
      }
    } else if (depth > 0) {
      const int level = static_cast<int>(pick(static_cast<std::uint64_t>(depth)));
      require_ok(w.rollback_to(level), "rollback_to");
      model_.rollback_to(level);
      ++rollbacks_;
    }
  }

  void require_ok(const Status& st, const char* what) {
    INFO(what << ": " << describe(st));
    REQUIRE(st.ok());
  }

  // The writer reads its own writes: the open transaction's scan includes its records.
  void check_writer_view(WriteTxn& w) {
    ++writer_checks_;
    for (const TimeView& view : {any_time(), valid_at(100)}) {
      CHECK(as_sorted_text(scan_all(*env_, w.read_txn(), IndexId::Eavt, view)) ==
            as_sorted_text(model_.visible(view, /*with_pending=*/true)));
      CHECK(as_sorted_text(scan_all(*env_, w.read_txn(), IndexId::Avet, view)) ==
            as_sorted_text(model_.visible(view, /*with_pending=*/true)));
    }
  }

  std::shared_ptr<GraphEnv> env_;
  HistoryModel& model_;
  std::mt19937_64 rng_;
  Universe universe_;
  std::vector<Fact> recent_;
  int aborted_ = 0;
  int rollbacks_ = 0;
  int writer_checks_ = 0;
};

template <typename Keep>
std::vector<Datom> filtered(const std::vector<Datom>& datoms, Keep keep) {
  std::vector<Datom> out;
  for (const Datom& d : datoms) {
    if (keep(d)) out.push_back(d);
  }
  return out;
}

std::string i64_key(std::int64_t x) {
  std::string k;
  put_ordered_int(k, x);
  return k;
}

std::vector<TimeView> views_to_check(std::uint64_t last_tx) {
  const Universe u;
  std::vector<TimeView> views;
  for (std::uint64_t as_of : {std::uint64_t{0}, std::uint64_t{1}, last_tx / 3, last_tx / 2,
                              last_tx - 1, last_tx, std::numeric_limits<std::uint64_t>::max()}) {
    views.push_back(any_time(as_of));
    for (std::int64_t t : u.valid_ats) views.push_back(valid_at(t, as_of));
  }
  return views;
}

std::string view_text(const TimeView& view) {
  return "as_of " + std::to_string(view.as_of) + ", valid_at " +
         (view.any_valid_time ? std::string("any") : std::to_string(view.valid_at));
}

// (a) EAVT shows the model; (b) the four indexes agree; (c) prefix scans show the model's part.
void check_view(const GraphEnv& env, MDB_txn* txn, const HistoryModel& model, const TimeView& view,
                int* nonempty_views) {
  const Universe u;
  INFO(view_text(view));
  const std::vector<Datom> expected = model.visible(view);
  const auto expected_text = as_sorted_text(expected);
  if (!expected.empty()) ++*nonempty_views;
  CHECK(as_sorted_text(scan_all(env, txn, IndexId::Eavt, view)) == expected_text);
  CHECK(as_sorted_text(scan_all(env, txn, IndexId::Aevt, view)) == expected_text);
  CHECK(as_sorted_text(scan_all(env, txn, IndexId::Avet, view)) == expected_text);
  const auto refs = filtered(expected, [](const Datom& d) { return d.v.is(ValueKind::Ref); });
  CHECK(as_sorted_text(scan_all(env, txn, IndexId::Vaet, view)) == as_sorted_text(refs));

  for (EntityId e : u.entities) {
    INFO("entity " << e);
    CHECK(as_sorted_text(scan_prefix(env, txn, IndexId::Eavt, i64_key(e), view)) ==
          as_sorted_text(filtered(expected, [&](const Datom& d) { return d.e == e; })));
    CHECK(as_sorted_text(scan_prefix(env, txn, IndexId::Vaet, i64_key(e), view)) ==
          as_sorted_text(filtered(refs, [&](const Datom& d) { return d.v.as_ref() == e; })));
  }
  for (EntityId a : u.attributes) {
    INFO("attribute " << a);
    CHECK(as_sorted_text(scan_prefix(env, txn, IndexId::Aevt, i64_key(a), view)) ==
          as_sorted_text(filtered(expected, [&](const Datom& d) { return d.a == a; })));
    for (const Value& v : u.values.at(a)) {
      std::string prefix = i64_key(a);
      encode_value(prefix, v);
      INFO("value " << datom_text(Datom{0, a, v}));
      CHECK(
          as_sorted_text(scan_prefix(env, txn, IndexId::Avet, prefix, view)) ==
          as_sorted_text(filtered(expected, [&](const Datom& d) { return d.a == a && d.v == v; })));
    }
  }
}

// Statistics must count what the raw indexes hold.
void check_statistics(const GraphEnv& env, MDB_txn* txn, const HistoryModel& model) {
  const Tables& t = env.tables();
  std::uint64_t eavt_records = 0, vaet_records = 0, ref_records = 0;
  std::set<std::string> entities;
  // Keys are decoded with the layout's own decoder (datom_layout.h).
  IndexTxTimes times(txn, t);
  auto decoded = [&times](IndexId index, std::string_view key) {
    Datom d;
    GiantRef giant;
    // Only the key's fields are counted: data made for it stands in for the stored data.
    REQUIRE(decode_datom(index, key, encode_record_data(key, kForever), &d, &giant, &times));
    return d;
  };
  for_each_key(txn, t.eavt, [&](std::string_view key) {
    ++eavt_records;
    const Datom d = decoded(IndexId::Eavt, key);
    entities.insert(std::to_string(d.e));
    ref_records += d.v.is(ValueKind::Ref);
  });
  for_each_key(txn, t.vaet, [&](std::string_view) { ++vaet_records; });
  std::map<EntityId, std::uint64_t> records;
  std::map<EntityId, std::set<std::string>> attr_entities, attr_values;
  for_each_key(txn, t.aevt, [&](std::string_view key) {
    const Datom d = decoded(IndexId::Aevt, key);
    ++records[d.a];
    attr_entities[d.a].insert(std::to_string(d.e));
  });
  std::uint64_t avet_records = 0;
  for_each_key(txn, t.avet, [&](std::string_view key) {
    ++avet_records;
    const Datom d = decoded(IndexId::Avet, key);
    attr_values[d.a].insert(std::string(key.substr(0, counted_prefix_length(IndexId::Avet, key))));
  });

  GraphStats g;
  REQUIRE(read_graph_stats(txn, t, &g).ok());
  CHECK(g.last_tx == model.last_tx());
  CHECK(g.records == eavt_records);
  CHECK(avet_records == eavt_records);
  CHECK(vaet_records == ref_records);
  CHECK(g.entities == entities.size());
  CHECK(g.attributes == records.size());
  for (const auto& [a, count] : records) {
    INFO("attribute " << a);
    AttributeStats s;
    REQUIRE(read_attribute_stats(txn, t, a, &s).ok());
    CHECK(s.records == count);
    CHECK(s.entities == attr_entities[a].size());
    CHECK(s.values == attr_values[a].size());
  }
}

void check_logs(const GraphEnv& env, MDB_txn* txn, const HistoryModel& model) {
  for (std::uint64_t tx = 1; tx <= model.last_tx(); ++tx) {
    INFO("tx " << tx);
    std::vector<Datom> logged;
    REQUIRE(read_tx_datoms(txn, env.tables(), tx, &logged).ok());
    // The index holds them in EAVT order, the model in write order: compare as sets. A record
    // written twice in one transaction (same fact, operation and valid-from) is one record,
    // with the valid-to written last.
    std::vector<Datom> records;
    for (const Datom& d : model.log(tx)) {
      auto same = std::find_if(records.begin(), records.end(), [&](const Datom& r) {
        return r.e == d.e && r.a == d.a && r.v == d.v && r.op == d.op && r.valid_from == d.valid_from;
      });
      if (same != records.end()) {
        same->valid_to = d.valid_to;
      } else {
        records.push_back(d);
      }
    }
    std::vector<std::string> read = as_text(logged), expected = as_text(records);
    std::sort(read.begin(), read.end());
    std::sort(expected.begin(), expected.end());
    CHECK(read == expected);
    std::optional<TxInfo> info;
    REQUIRE(read_tx_info(txn, env.tables(), tx, &info).ok());
    REQUIRE(info.has_value());
    CHECK(info->datoms == model.log(tx).size());
    CHECK(info->time_ms == model.tx_time(tx));
  }
  std::optional<TxInfo> beyond;
  REQUIRE(read_tx_info(txn, env.tables(), model.last_tx() + 1, &beyond).ok());
  CHECK_FALSE(beyond.has_value());
}

TEST_CASE("model: random bi-temporal histories read back exactly through all four indexes",
          "[model]") {
  TempDir dir;
  auto env = open_graph(dir.file("model.graph"));
  HistoryModel model;
  Driver driver(env, model);
  for (int i = 0; i < kTransactions; ++i) driver.run_transaction();

  // The run must have exercised what it is about.
  REQUIRE(model.last_tx() > kTransactions / 2);
  CHECK(driver.aborted() > 10);
  CHECK(driver.rollbacks() > 10);
  CHECK(driver.writer_checks() > 50);

  ReadSnapshot snapshot(*env);
  int nonempty_views = 0;
  const auto views = views_to_check(model.last_tx());
  for (const TimeView& view : views) check_view(*env, snapshot.txn(), model, view, &nonempty_views);
  CHECK(nonempty_views > static_cast<int>(views.size()) / 2);
  check_statistics(*env, snapshot.txn(), model);
  check_logs(*env, snapshot.txn(), model);
}

}  // namespace
}  // namespace datalog::store::testing
