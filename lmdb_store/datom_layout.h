// lmdb_store/datom_layout.h: how a datom record is laid out in each of the four indexes.
//
// Every index row is one record of the append-only history: an assertion or a retraction of
// (e, a, v) in transaction tx, with its valid-time interval [valid_from, valid_to).
//
//   eavt key: e a V | tx op [vf] n     aevt key: a e V | tx op [vf] n
//   avet key: a V e | tx op [vf] n     vaet key: r a e | tx op [vf] n   (only when V is a ref to r)
//   data (all four): vt (left out when it is forever), then the check byte of key and vt
//
// e, a, r, vf are ordered signed integers and tx an ordered unsigned one (key_coding.h: 1 to 9
// bytes, small numbers short). The op byte is 2 × op, plus 1 when vf follows: a vf equal to the
// transaction's time (the default valid-from) is left out, and decoding takes that time
// (TxTimes). Records of one fact and transaction sort by op, then with the default valid-from
// first, then by vf. V is encode_value; n, the last byte, is the
// length of "tx op [vf]", so the fact part of a key is found without decoding it. vt, when
// bounded, is a sign-flipped big-endian i64; the check byte (record_check.h) lets a reader see a
// record damaged in place. The fact part (e, a, v) comes first: the records of
// one fact are adjacent in every index, oldest transaction first, so a scan resolves retractions
// group by group. (n cannot disturb that order: the encodings before it are self-delimiting, so
// two keys differ before it.) Keys fit LMDB's 511-byte limit: V is at most kMaxEncodedValue
// bytes. docs/STORAGE.md has the arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/datom.h"
#include "engine/value.h"
#include "lmdb_store/key_coding.h"

namespace datalog::store {

enum class IndexId : std::uint8_t { Eavt, Aevt, Avet, Vaet };
inline constexpr std::size_t kIndexCount = 4;  // the IndexId values
std::string_view index_name(IndexId index);

using datalog::Datom;
using datalog::kForever;
using datalog::Op;

inline constexpr std::size_t kMaxTxSuffix = 9 + 1 + 9 + 1;  // tx op vf n, at their longest
inline constexpr std::size_t kMaxIdBytes = 9;                // an ordered id at its longest

// The length of key's fact part (everything before "tx op vf n"); 0 when key is malformed.
// Inline: a scan asks twice per record.
inline std::size_t fact_length(std::string_view key) {
  if (key.empty()) return 0;
  const std::size_t suffix = static_cast<std::uint8_t>(key.back());
  if (suffix + 1 >= key.size()) return 0;
  return key.size() - 1 - suffix;
}
// The length of the key prefix whose first appearance statistics count: the entity (eavt), the
// (attribute, entity) pair (aevt), the (attribute, value) pair (avet); 0 for vaet or when
// malformed.
std::size_t counted_prefix_length(IndexId index, std::string_view key);

// Appends the key of datom in index. For Vaet, datom.v must be a ref. tx_time_ms: the time of
// datom.tx, or kUnknownTxTime (then vf is written out).
void encode_datom_key(std::string& out, IndexId index, const Datom& datom, std::int64_t tx_time_ms);
// Appends the key in index of the datom whose EAVT key (encode_datom_key) is eavt_key: the same
// fields in the index's order, moved rather than encoded again (Vaet: V must be a ref).
void datom_key_from_eavt(std::string& out, IndexId index, std::string_view eavt_key);
// Appends only the (e, a, v) group prefix of datom's key in index.
void encode_fact_prefix(std::string& out, IndexId index, EntityId e, EntityId a, const Value& v);
// Appends "tx op" with the op byte of a default valid-from: the first key of the records of a fact
// made by op in tx. Every such record starts with it up to the op byte (same_tx_op).
void encode_tx_op(std::string& out, std::uint64_t tx, Op op);
// Whether key is a record made by the op of prefix (a fact part and encode_tx_op).
bool same_tx_op(std::string_view key, std::string_view prefix);
// For tx_time_ms when the transaction's time is not known: vf is always written out.
inline constexpr std::int64_t kUnknownTxTime = INT64_MIN;
// Appends "tx op vf n"; tx_time_ms: the time of transaction tx (kUnknownTxTime: not known).
void encode_tx_suffix(std::string& out, std::uint64_t tx, Op op, std::int64_t valid_from,
                      std::int64_t tx_time_ms);

// The times of transactions, for decoding records whose vf is their transaction's time.
class TxTimes {
 public:
  virtual ~TxTimes() = default;
  // False when tx has no time (a damaged or foreign index). The last answer is kept here,
  // without a virtual call: a scan's records come in long runs of one transaction.
  bool time_of(std::uint64_t tx, std::int64_t* ms) {
    if (tx == last_tx_ && tx != 0) {  // no datom has transaction 0
      *ms = last_ms_;
      return true;
    }
    if (!look_up(tx, ms)) return false;
    last_tx_ = tx;
    last_ms_ = *ms;
    return true;
  }

 protected:
  virtual bool look_up(std::uint64_t tx, std::int64_t* ms) = 0;
  // For an implementation whose answers change (another state of the graph).
  void forget_last() { last_tx_ = 0; }

 private:
  std::uint64_t last_tx_ = 0;
  std::int64_t last_ms_ = 0;
};
// Appended to a fact part: sorts after every record of the fact.
inline constexpr char kAfterFact = '\xff';
// The data of a record: valid_to (nothing when it is forever) and the check byte of key and it.
std::string encode_record_data(std::string_view key, std::int64_t valid_to);
// Appends valid_to's bytes alone (nothing when it is forever): the data before its check byte.
void encode_valid_to(std::string& out, std::int64_t valid_to);

// Decodes a key of index (and its data) into datom; false too when the data's check byte is not
// the key's and the data's (record_check.h). A giant value comes back as its prefix with
// giant/hash set; the caller fetches the full text. Returns false on a malformed key.
struct GiantRef {
  bool giant = false;
  GiantHash hash{};
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
// times resolves a vf left out; without it (null) such a key is malformed.
bool decode_datom(IndexId index, std::string_view key, std::string_view data, Datom* d, GiantRef* giant,
                  TxTimes* times, bool skip_value = false, ValueMemo* memo = nullptr);

}  // namespace datalog::store
