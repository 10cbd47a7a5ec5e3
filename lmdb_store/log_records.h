// lmdb_store/log_records.h: the graph's transaction log as it is kept in SQLite (storage v2).
//
// The log is the truth; the LMDB indexes are derived from it by replaying it in order. One log
// row is one graph transaction (or a part of one, when it is large): its counter, its wall time
// and a body of records, each what one write call did:
//
//   'I' ident created   id | name
//   'A' assert          e | a | flags | [valid_from] | [valid_to] | value
//   'R' retract         e | a | value
//   'u' rule added      name (u32 length | bytes) | source (u32 length | bytes)
//   'x' rules removed   name (u32 length | bytes)
//   'c' counter consumed by elided retractions (no payload): the transaction takes its counter
//       though it stored no datom (a graph imported from the first storage format, whose log
//       kept such a transaction's count but not its retractions)
//
// Ids and times are ordered integers (key_coding.h: 1 to 9 bytes, an ident id 2 to 4). An
// assertion's flags say which valid-time bounds follow: those left out are the defaults, valid
// from the row's transaction time and to forever. A value is its kind's tag, then an ordered
// integer (integers, instants, refs), an ordered length and the bytes (texts) or its fixed form
// (the rest). These encodings are part of the log's format: they never change.
//
// Rows written before the compact records (storage format 2 as first released) hold the same
// records under lower-case tags, with every integer in 8 bytes and values as a u32 length and a
// stored value (stored_value.h):
//   'i' id (i64) | name      'a' e | a | valid_from | valid_to (i64 each) | value
//   'r' e | a | value
// They are still read.
//
// A row replays without anything but the index state its predecessors built. Replaying the
// same calls on the same state makes the same records (retractions are elided, reassertions
// cancelled exactly as they were the first time), which is what makes the index derivable.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engine/datom.h"
#include "engine/storage.h"
#include "engine/value.h"
#include "lmdb_store/mdb_status.h"

namespace datalog::store {

struct LogRow {
  std::uint64_t seq = 0;       // position in the log (1, 2, ...); 0 until written
  std::uint64_t tx = 0;        // the transaction counter it consumed, or the last one before it
  std::int64_t tx_time_ms = 0;
  bool consumes_tx = false;    // it holds datoms (or elided retractions): tx is its own
  std::string body;
};

// Appending records to a row body.
void log_ident(std::string& body, EntityId id, const Value& name);
// tx_time_ms: the time of the row's transaction (the default valid-from).
void log_assert(std::string& body, EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                std::int64_t valid_to, std::int64_t tx_time_ms);
void log_retract(std::string& body, EntityId e, EntityId a, const Value& v);
void log_rule(std::string& body, const StoredRule& rule);
void log_rules_removed(std::string& body, const std::string& name);
void log_counter_consumed(std::string& body);

// What a body holds, record by record.
class LogRecordVisitor {
 public:
  virtual ~LogRecordVisitor() = default;
  virtual Status ident(EntityId id, const Value& name) = 0;
  virtual Status asserted(EntityId e, EntityId a, const Value& v, std::int64_t valid_from,
                          std::int64_t valid_to) = 0;
  virtual Status retracted(EntityId e, EntityId a, const Value& v) = 0;
  virtual Status rule(const StoredRule& rule) = 0;
  virtual Status rules_removed(const std::string& name) = 0;
  virtual Status counter_consumed() = 0;
};

// Calls visitor for each record of body in order; a malformed body (a damaged or forged
// database) is Corrupt, naming the row and the byte offset.
// tx_time_ms: the row's transaction time, what an assertion's left-out valid-from means.
Status read_log_body(std::uint64_t seq, std::int64_t tx_time_ms, std::string_view body,
                     LogRecordVisitor& visitor);

}  // namespace datalog::store
