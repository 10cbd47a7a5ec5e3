// The log's records (lmdb_store/log_records.h) and their replay (WriteTxn::replay_row): a log
// row comes from the database, which may come from someone else, so any bytes decode to records
// or to a Corrupt error naming the row, and replaying hostile records fails cleanly.
#include "lmdb_store/log_records.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "lmdb_store/write_txn.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr auto kTimeout = std::chrono::milliseconds(5'000);

// Counts what a body holds.
struct Counter final : LogRecordVisitor {
  int idents = 0, asserts = 0, retracts = 0, rules = 0, removals = 0, counters = 0;
  Status ident(EntityId, const Value&) override { return ++idents, Status::OK(); }
  Status asserted(EntityId, EntityId, const Value&, std::int64_t, std::int64_t) override {
    return ++asserts, Status::OK();
  }
  Status retracted(EntityId, EntityId, const Value&) override { return ++retracts, Status::OK(); }
  Status rule(const StoredRule&) override { return ++rules, Status::OK(); }
  Status rules_removed(const std::string&) override { return ++removals, Status::OK(); }
  Status counter_consumed() override { return ++counters, Status::OK(); }
};

std::string sample_body() {
  std::string body;
  log_ident(body, EntityId{1} << 52, Value::keyword(":alice"));
  log_assert(body, 7, EntityId{1} << 52, Value::string(std::string(300, 'x')), 0, INT64_MAX);
  log_assert(body, 8, 9, Value::integer(-5), 10, 20);
  log_retract(body, 7, 9, Value::floating(1.5));
  log_rule(body, StoredRule{"r", "[(r ?x) [?x :n _]]"});
  log_rules_removed(body, "r");
  return body;
}

TEST_CASE("log records: a body reads back record for record") {
  Counter c;
  REQUIRE(read_log_body(1, sample_body(), c).ok());
  CHECK(c.idents == 1);
  CHECK(c.asserts == 2);
  CHECK(c.retracts == 1);
  CHECK(c.rules == 1);
  CHECK(c.removals == 1);
}

TEST_CASE("log records: every cut and every mutation of a body decodes or is Corrupt") {
  const std::string body = sample_body();
  for (std::size_t cut = 0; cut < body.size(); ++cut) {
    Counter c;
    const Status st = read_log_body(3, std::string_view(body).substr(0, cut), c);
    CHECK((st.ok() || st.code() == StatusCode::Corrupt));
  }
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20'000; ++round) {
    std::string mutated = body;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    Counter c;
    const Status st = read_log_body(4, mutated, c);
    REQUIRE((st.ok() || st.code() == StatusCode::Corrupt));
    if (!st.ok()) {
      CHECK(st.message().find("row 4") != std::string::npos);
    }
  }
}

TEST_CASE("log records: replaying hostile records fails cleanly and leaves the index as it was") {
  TempDir dir;
  auto env = open_graph(dir.file("g.graph"));
  std::vector<std::string> bodies;
  std::string b;
  log_ident(b, 5, Value::keyword(":low"));  // an ident id below 2^52 collides with nothing yet
  log_ident(b, 6, Value::keyword(":low"));  // the same name under another id
  bodies.push_back(b);
  b.clear();
  log_assert(b, 1, 2, Value::floating(std::nan("")), 0, INT64_MAX);  // NaN cannot be stored
  bodies.push_back(b);
  b.clear();
  log_rules_removed(b, std::string(100'000, 'r'));  // removing what is not there
  log_retract(b, -1, -2, Value::nil());             // retracting what was never asserted
  bodies.push_back(b);
  for (const std::string& body : bodies) {
    std::unique_ptr<WriteTxn> w;
    REQUIRE(WriteTxn::begin(env, kTimeout, &w).ok());
    LogRow row;
    row.seq = 1;
    row.tx = 1;
    row.tx_time_ms = 1000;
    row.body = body;
    const Status st = w->replay_row(row);
    if (st.ok()) {
      REQUIRE(w->finish_replay().ok());
    } else {
      CHECK((st.code() == StatusCode::Corrupt || st.code() == StatusCode::InvalidArgument));
    }
    w->abort();
  }
  // Nothing of it reached the index.
  std::unique_ptr<WriteTxn> w;
  REQUIRE(WriteTxn::begin(env, kTimeout, &w).ok());
  CHECK(w->tx() == 1);
  w->abort();
}

}  // namespace
}  // namespace datalog::store::testing
