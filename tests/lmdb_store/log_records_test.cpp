// The log's records (lmdb_store/log_records.h) and their replay (WriteTxn::replay_row): a log
// row comes from the database, which may come from someone else, so any bytes decode to records
// or to a Corrupt error naming the row, and replaying hostile records fails cleanly.
#include "lmdb_store/log_records.h"

#include <fmt/format.h>

#include "lmdb_store/key_coding.h"
#include "lmdb_store/stored_value.h"

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
  log_assert(body, 7, EntityId{1} << 52, Value::string(std::string(300, 'x')), 0, INT64_MAX, 1000);
  log_assert(body, 8, 9, Value::integer(-5), 10, 20, 1000);
  log_retract(body, 7, 9, Value::floating(1.5));
  log_rule(body, StoredRule{"r", "[(r ?x) [?x :n _]]"});
  log_rules_removed(body, "r");
  return body;
}

TEST_CASE("log records: a body reads back record for record") {
  Counter c;
  REQUIRE(read_log_body(1, 1000, sample_body(), c).ok());
  CHECK(c.idents == 1);
  CHECK(c.asserts == 2);
  CHECK(c.retracts == 1);
  CHECK(c.rules == 1);
  CHECK(c.removals == 1);
}

// Every record as text, to compare bodies record for record.
struct Recorder : LogRecordVisitor {
  std::vector<std::string> seen;
  Status ident(EntityId id, const Value& name) override {
    seen.push_back(fmt::format("ident {} {}", id, name.to_edn()));
    return Status::OK();
  }
  Status asserted(EntityId e, EntityId a, const Value& v, std::int64_t from, std::int64_t to) override {
    seen.push_back(fmt::format("assert {} {} {} {} {}", e, a, v.to_edn(), from, to));
    return Status::OK();
  }
  Status retracted(EntityId e, EntityId a, const Value& v) override {
    seen.push_back(fmt::format("retract {} {} {}", e, a, v.to_edn()));
    return Status::OK();
  }
  Status rule(const StoredRule& r) override { return seen.push_back("rule " + r.name), Status::OK(); }
  Status rules_removed(const std::string& n) override { return seen.push_back("unrule " + n), Status::OK(); }
  Status counter_consumed() override { return seen.push_back("counter"), Status::OK(); }
};

TEST_CASE("log records: compact records give back every kind of value and both valid-time bounds") {
  constexpr std::int64_t kTime = 1'796'000'000'000;
  const EntityId ident = (EntityId{1} << 52) + 77;
  Uuid u;
  for (std::size_t i = 0; i < 16; ++i) u.bytes[i] = static_cast<std::uint8_t>(i * 17);
  const std::vector<Value> values = {
      Value::integer(0), Value::integer(-5), Value::integer(INT64_MIN), Value::integer(INT64_MAX),
      Value::instant(kTime), Value::ref(ident), Value::ref(-3), Value::floating(-2.5),
      Value::boolean(true), Value::uuid(u), Value::nil(), Value::string(""),
      Value::string(std::string("a\0b", 3)), Value::keyword(":k"), Value::bytes(std::string(300, '\xff'))};
  std::string body;
  std::vector<std::string> expected;
  log_ident(body, ident, Value::keyword(":e77"));
  expected.push_back(fmt::format("ident {} :e77", ident));
  for (const Value& v : values) {
    log_assert(body, ident, 9, v, kTime, kForever, kTime);  // both bounds left out
    expected.push_back(fmt::format("assert {} 9 {} {} {}", ident, v.to_edn(), kTime, kForever));
    log_assert(body, -1, ident, v, -7, kTime + 1, kTime);  // both given
    expected.push_back(fmt::format("assert -1 {} {} -7 {}", ident, v.to_edn(), kTime + 1));
    log_retract(body, 12, ident, v);
    expected.push_back(fmt::format("retract 12 {} {}", ident, v.to_edn()));
  }
  Recorder r;
  REQUIRE(read_log_body(1, kTime, body, r).ok());
  CHECK(r.seen == expected);
  // The defaults cost nothing: an integer fact of an ident entity and attribute in 9 bytes.
  std::string one;
  log_assert(one, ident, ident, Value::integer(30), kTime, kForever, kTime);
  CHECK(one.size() == 9);
}

TEST_CASE("log records: rows of the first release of format 2 (fixed-width records) still read") {
  // 'i' id (i64) | u32 length | stored value; 'a' e a from to (i64) | value; 'r' e a | value.
  auto i64 = [](std::int64_t x) {
    std::string s;
    put_i64(s, x);
    return s;
  };
  auto stored = [](const Value& v) {
    const std::string bytes = encode_stored_value(v);
    std::string s;
    for (int shift = 24; shift >= 0; shift -= 8) s += static_cast<char>((bytes.size() >> shift) & 0xFF);
    return s + bytes;
  };
  const std::string body = "i" + i64(5) + stored(Value::keyword(":x")) +               //
                           "a" + i64(5) + i64(6) + i64(10) + i64(20) + stored(Value::integer(7)) +
                           "r" + i64(5) + i64(6) + stored(Value::string("s"));
  Recorder r;
  REQUIRE(read_log_body(1, 999, body, r).ok());
  CHECK(r.seen == std::vector<std::string>{"ident 5 :x", "assert 5 6 7 10 20", "retract 5 6 \"s\""});
}

TEST_CASE("log records: every cut and every mutation of a body decodes or is Corrupt") {
  const std::string body = sample_body();
  for (std::size_t cut = 0; cut < body.size(); ++cut) {
    Counter c;
    const Status st = read_log_body(3, 1000, std::string_view(body).substr(0, cut), c);
    CHECK((st.ok() || st.code() == StatusCode::Corrupt));
  }
  std::mt19937_64 rng(42);
  for (int round = 0; round < 20'000; ++round) {
    std::string mutated = body;
    const int flips = 1 + static_cast<int>(rng() % 8);
    for (int i = 0; i < flips; ++i) mutated[rng() % mutated.size()] = static_cast<char>(rng());
    Counter c;
    const Status st = read_log_body(4, 1000, mutated, c);
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
  log_assert(b, 1, 2, Value::floating(std::nan("")), 0, INT64_MAX, 1000);  // NaN cannot be stored
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
