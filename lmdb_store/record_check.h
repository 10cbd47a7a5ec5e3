// lmdb_store/record_check.h: one check byte per index record, so damage that still decodes is
// seen on read.
//
// LMDB has no page checksums: a bit flipped inside a record (a value, a transaction number, an
// ident's name) decodes as another record and gives a wrong answer. Each record of the datom
// indexes, of both ident tables and of the transaction table ends its data with a byte derived
// from its key and the rest of its data; a reader that finds the byte wrong treats the index as
// damaged (page_fault_guard.h), and the log rebuilds it. One byte misses 1 damaged record in 256;
// damage on its own record's keys is further caught by the key order checks (KeyOrder).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace datalog::store {

// The check byte of a record whose key is key and whose data, before the byte, is data.
std::uint8_t record_check(std::string_view key, std::string_view data);
// Appends the check byte of (key, data) to data.
inline void append_record_check(std::string& data, std::string_view key) {
  data += static_cast<char>(record_check(key, data));
}
// Whether stored data ends with the check byte of key and what comes before it; *payload is then
// the data without it.
inline bool checked_payload(std::string_view key, std::string_view stored, std::string_view* payload) {
  if (stored.empty()) return false;
  *payload = stored.substr(0, stored.size() - 1);
  return static_cast<std::uint8_t>(stored.back()) == record_check(key, *payload);
}
// Whether stored data ends with the right check byte, when what precedes it is not needed.
inline bool record_intact(std::string_view key, std::string_view stored) {
  std::string_view payload;
  return checked_payload(key, stored, &payload);
}

}  // namespace datalog::store
