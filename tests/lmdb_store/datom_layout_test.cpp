// The index record layout (lmdb_store/datom_layout.h): keys decode back to their datoms in every
// index, a valid-from equal to the transaction's time takes one byte and decodes only with the
// transaction's time, and the fact part is found from the key's last byte.
#include "lmdb_store/datom_layout.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "lmdb_store/key_coding.h"
#include "test_support.h"

namespace datalog::store::testing {
namespace {

constexpr std::int64_t kTxTime = 1'796'000'000'000;

struct FixedTimes final : TxTimes {
  std::map<std::uint64_t, std::int64_t> times;
  bool look_up(std::uint64_t tx, std::int64_t* ms) override {
    auto it = times.find(tx);
    if (it == times.end()) return false;
    *ms = it->second;
    return true;
  }
};

std::string key_of(IndexId index, const Datom& d, std::int64_t tx_time) {
  std::string key;
  encode_datom_key(key, index, d, tx_time);
  return key;
}

TEST_CASE("datom layout: every index's key decodes to its datom", "[layout]") {
  const EntityId ident = static_cast<EntityId>(kIdentBase) + 5;
  FixedTimes times;
  times.times[7] = kTxTime;
  const std::vector<Datom> datoms = {
      Datom{ident, ident + 1, Value::ref(ident + 2), 7, Op::Assert, kTxTime, kForever},
      Datom{-3, 4, Value::ref(-9), 7, Op::Retract, -100, 55},
      Datom{1, 2, Value::ref(3), 7, Op::Reassert, kTxTime + 1, kTxTime + 2},
  };
  for (const Datom& d : datoms) {
    for (IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
      INFO(datom_text(d) << " in " << index_name(index));
      const std::string key = key_of(index, d, kTxTime);
      Datom back;
      GiantRef giant;
      REQUIRE(decode_datom(index, key, encode_record_data(key, d.valid_to), &back, &giant, &times));
      CHECK(datom_text(back) == datom_text(d));
      CHECK(fact_length(key) > 0);
    }
  }
}

TEST_CASE("datom layout: keys moved from the EAVT key are the keys encoded", "[layout]") {
  const EntityId ident = static_cast<EntityId>(kIdentBase) + 5;
  const std::vector<Datom> datoms = {
      Datom{ident, ident + 1, Value::ref(ident + 2), 7, Op::Assert, kTxTime, kForever},
      Datom{-3, 4, Value::ref(-9), 7, Op::Retract, -100, 55},
      Datom{1, 2, Value::integer(-70000), 7, Op::Reassert, kTxTime + 1, kTxTime + 2},
      Datom{ident, 2, Value::string(std::string("a\0b\x01", 4)), 9, Op::Assert, kTxTime, kForever},
      Datom{ident, 2, Value::string(std::string(kInlineLimit + 40, 'g')), 9, Op::Assert, kTxTime, kForever},
      Datom{0, ident, Value::keyword(":k"), 1, Op::Assert, 0, kForever},
  };
  for (const Datom& d : datoms) {
    for (const std::int64_t tx_time : {kTxTime, kUnknownTxTime}) {
      const std::string eavt = key_of(IndexId::Eavt, d, tx_time);
      for (IndexId index : {IndexId::Eavt, IndexId::Aevt, IndexId::Avet, IndexId::Vaet}) {
        if (index == IndexId::Vaet && !d.v.is(ValueKind::Ref)) continue;
        INFO(datom_text(d) << " in " << index_name(index));
        std::string moved = "x";  // appended to, as encode_datom_key does
        datom_key_from_eavt(moved, index, eavt);
        CHECK(moved == "x" + key_of(index, d, tx_time));
      }
    }
  }
}

TEST_CASE("datom layout: a valid-from equal to the transaction's time is left out", "[layout]") {
  const Datom d{1, 2, Value::integer(3), 7, Op::Assert, kTxTime, kForever};
  const std::string elided = key_of(IndexId::Eavt, d, kTxTime);
  const std::string written = key_of(IndexId::Eavt, d, kUnknownTxTime);
  CHECK(written.size() == elided.size() + 7);  // an ordered time of this century: 7 bytes
  CHECK(fact_length(elided) == fact_length(written));
  Datom back;
  GiantRef giant;
  const std::string elided_data = encode_record_data(elided, kForever);
  const std::string written_data = encode_record_data(written, kForever);
  CHECK_FALSE(decode_datom(IndexId::Eavt, elided, elided_data, &back, &giant, nullptr));  // no times
  FixedTimes none;
  CHECK_FALSE(decode_datom(IndexId::Eavt, elided, elided_data, &back, &giant, &none));  // tx unknown
  FixedTimes times;
  times.times[7] = kTxTime;
  REQUIRE(decode_datom(IndexId::Eavt, elided, elided_data, &back, &giant, &times));
  CHECK(back.valid_from == kTxTime);
  REQUIRE(decode_datom(IndexId::Eavt, written, written_data, &back, &giant, nullptr));
  CHECK(back.valid_from == kTxTime);
  // The two forms of one record sort together, after the fact's other transactions' records.
  const Datom later{1, 2, Value::integer(3), 8, Op::Assert, 0, kForever};
  CHECK(elided < key_of(IndexId::Eavt, later, kUnknownTxTime));
}

}  // namespace
}  // namespace datalog::store::testing
