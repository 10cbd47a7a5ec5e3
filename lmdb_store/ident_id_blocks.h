// lmdb_store/ident_id_blocks.h: the records of ident_ids, the table of names by entity id.
//
// One record holds the names of kIdsPerBlock consecutive ids (index format 7). Ids are handed out
// in sequence (meta.h kNextIdent), so a block fills as names are made and is rewritten at the
// table's end. A record per id cost LMDB's 10 bytes of node and slot, a 4-byte key and a check
// byte on top of each name (24 bytes a name for the benchmark's `:e123456`); a block spreads
// them over 16 names, about 11.5 bytes a name. (32 names a record saved half a byte a name more,
// but a block is rewritten whole, and its check byte hashed again, at each name added.)
//
//   key:   ordered_int_key(id >> kIdBlockBits)
//   data:  slots (2 bytes, big-endian: bit s set when id (block << kIdBlockBits) + s has a name)
//          | for each set bit, lowest first: length (LEB128) | the name's stored value
//          | check byte (record_check.h)
//
// The functions here read and build the data without its check byte. They take the bytes as
// they come from a file that may be damaged: every length is bounded by what is there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "engine/datom.h"

namespace datalog::store {

inline constexpr int kIdBlockBits = 4;
inline constexpr std::uint32_t kIdsPerBlock = std::uint32_t{1} << kIdBlockBits;

std::string id_block_key(EntityId id);
inline unsigned id_block_slot(EntityId id) {
  return static_cast<unsigned>(static_cast<std::uint64_t>(id) & (kIdsPerBlock - 1));
}

// Slot slot's stored name in block payload: *found false when the slot is empty. False when the
// payload is malformed.
bool find_in_id_block(std::string_view payload, unsigned slot, bool* found, std::string_view* stored);
// payload (empty: no block yet) with slot's stored name added, in *out. False when the payload is
// malformed or the slot already has a name (an id is never handed out twice).
bool add_to_id_block(std::string_view payload, unsigned slot, std::string_view stored, std::string* out);

}  // namespace datalog::store
