// lmdb_store/datom_layout.h: how a datom record is laid out in each of the four indexes.
//
// Every index row is one record of the append-only history: an assertion or a retraction of
// (e, a, v) in transaction tx, with its valid-time interval [valid_from, valid_to).
//
//   eavt key: e a V | tx op vf      aevt key: a e V | tx op vf
//   avet key: a V e | tx op vf      vaet key: r a e | tx op vf   (only when V is a ref to r)
//   data (all four): vt
//
// e, a, r, vf, vt are sign-flipped big-endian i64 (key_coding.h); tx is big-endian u64; op one
// byte; V is encode_value. The part before "tx op vf" (the last kTxSuffix bytes) identifies
// (e, a, v): the records of one fact are adjacent in every index, oldest transaction first, so a
// scan resolves retractions group by group. Keys fit LMDB's 511-byte limit: V is at most
// kMaxEncodedValue bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/datom.h"
#include "engine/value.h"

namespace datalog::store {

enum class IndexId : std::uint8_t { Eavt, Aevt, Avet, Vaet };
inline constexpr std::size_t kIndexCount = 4;  // the IndexId values
std::string_view index_name(IndexId index);

using datalog::Datom;
using datalog::kForever;
using datalog::Op;

inline constexpr std::size_t kTxSuffix = 8 + 1 + 8;

// Appends the key of datom in index. For Vaet, datom.v must be a ref.
void encode_datom_key(std::string& out, IndexId index, const Datom& datom);
// Appends only the (e, a, v) group prefix of datom's key in index.
void encode_fact_prefix(std::string& out, IndexId index, EntityId e, EntityId a, const Value& v);
void encode_tx_suffix(std::string& out, std::uint64_t tx, Op op, std::int64_t valid_from);
std::string encode_valid_to(std::int64_t valid_to);
void encode_valid_to(std::string& out, std::int64_t valid_to);  // appends

// Decodes a key of index (and its data) into datom. A giant value comes back as its prefix with
// giant/hash set; the caller fetches the full text. Returns false on a malformed key.
struct GiantRef {
  bool giant = false;
  std::uint64_t hash = 0;
};
// The last text value decoded from an AVET key, with its key bytes: a scan of AVET meets each
// value in a run of keys, and a text costs far more to decode than to compare.
struct ValueMemo {
  std::string bytes;
  Value value;
};

// With skip_value, d->v is set to nil without decoding where the key layout allows it (EAVT,
// AEVT: the value is the key's last field); giant is then never set. With memo, AVET keys reuse the value decoded
// from the previous key when their value bytes are the same.
bool decode_datom(IndexId index, std::string_view key, std::string_view data, Datom* d, GiantRef* giant,
                  bool skip_value = false, ValueMemo* memo = nullptr);

}  // namespace datalog::store
