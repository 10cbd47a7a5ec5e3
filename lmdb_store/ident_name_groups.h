// lmdb_store/ident_name_groups.h: the records of ident_names, the table of entity ids by name.
//
// A name's key (catalog_idents.cpp: its encoded length, then its encoded value) is cut before its
// last kNameTail bytes: names whose keys differ only there share one record, keyed by the rest
// (index format 7). Names made in sequence (`:e120` ... `:e129`, IRIs that end in a number)
// differ in their last character, which with the text's end marker is a key's last two bytes: ten
// such names share a record. A record per name cost LMDB's 10 bytes of node and slot, the whole
// key and a check byte for each (26 bytes a name for the benchmark's `:e123456`); a group spreads
// them, about 8 bytes a name. A name that shares its group with no other costs about what it did.
//
//   key:   the name's key without its last kNameTail bytes
//   data:  for each name, in the order of their tails: tail (kNameTail bytes) | id (ordered
//          integer, key_coding.h) | check byte (record_check.h)
//
// Only exact look-ups read the table. The functions here read and build the data without its
// check byte, and take the bytes as they come from a file that may be damaged.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "engine/datom.h"

namespace datalog::store {

inline constexpr std::size_t kNameTail = 2;

// A name's key (at least kNameTail + 1 bytes: a length, a tag and an end marker) cut into its
// group's key and its tail.
inline std::string_view name_group_key(std::string_view name_key) {
  return name_key.substr(0, name_key.size() - kNameTail);
}
inline std::string_view name_tail(std::string_view name_key) {
  return name_key.substr(name_key.size() - kNameTail);
}

// Where tail is in group payload: found, with its id, or the offset its entry would go at (tails
// are in order). Entries past that point are not read. False when the payload is malformed.
struct NameGroupPlace {
  bool found = false;
  EntityId id = 0;
  std::size_t insert_at = 0;
};
bool search_name_group(std::string_view payload, std::string_view tail, NameGroupPlace* place);
// payload (empty: a new group) with (tail, id) inserted at insert_at, from search_name_group.
void insert_into_name_group(std::string_view payload, std::size_t insert_at, std::string_view tail,
                            EntityId id, std::string* out);

}  // namespace datalog::store
